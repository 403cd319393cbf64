// Guides under docs/ are imported as text (`with { type: "text" }`) so the compiled binary carries them.
declare module "*.md" {
  const text: string;
  export default text;
}
