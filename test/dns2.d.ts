declare module "dns2";
