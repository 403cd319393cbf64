/**
 * The words of the form itself (buttons, error messages, hints) in the
 * languages a survey is most often written in; any other language falls
 * back to English for these while the survey's own texts are translated.
 * `{n}`, `{min}`, `{max}` are filled in by `ui()`.
 */
const EN = {
  next: "Next",
  back: "Back",
  submit: "Submit",
  required: "(required)",
  optional: "(optional)",
  errorTitle: "There is a problem",
  errRequired: "Answer this question.",
  errChoose: "Choose one of the options.",
  errChooseSome: "Choose from the options.",
  errOtherText: "Say what “Other” is.",
  errTooShort: "Write at least {min} characters.",
  errTooLong: "Write at most {max} characters.",
  errNumber: "Enter a number.",
  errWhole: "Enter a whole number.",
  errMin: "Enter {min} or more.",
  errMax: "Enter {max} or less.",
  errDate: "Enter a real date, like 2026-01-31.",
  errDateMin: "Enter {min} or later.",
  errDateMax: "Enter {max} or earlier.",
  errEmail: "Enter an email address like name@example.com.",
  errPickMin: "Choose at least {min}.",
  errPickMax: "Choose at most {max}.",
  errMatrix: "Answer every row.",
  errRanking: "Give each item a different position from 1 to {n}.",
  hintPick: "Choose up to {max}.",
  hintPickRange: "Choose {min} to {max}.",
  hintRank: "Give each item a position, 1 for the first.",
  hintDate: "For example 2026-01-31.",
  hintRange: "From {min} to {max}.",
  other: "Other",
  otherSpecify: "Please specify",
  position: "Position",
  stars: "{n} of {max} stars",
  notLikely: "Not at all likely",
  veryLikely: "Extremely likely",
  page: "Page {n}",
  closed: "This survey is closed",
  closedBody: "It is no longer accepting responses. Thank you for your interest.",
  notFound: "Survey not found",
  notFoundBody: "There is no open survey at this address.",
  tooMany: "Too many submissions",
  tooManyBody: "Too many responses came from your network just now. Wait {n} seconds and submit again.",
  expired: "This form has expired",
  expiredBody: "Reload the survey and answer again.",
  language: "Language",
  thanks: "Thank you!",
  continueLink: "Continue",
};
export type UiKey = keyof typeof EN;

const DE: Partial<typeof EN> = {
  next: "Weiter",
  back: "Zurück",
  submit: "Absenden",
  required: "(Pflichtfeld)",
  optional: "(optional)",
  errorTitle: "Es gibt ein Problem",
  errRequired: "Beantworten Sie diese Frage.",
  errChoose: "Wählen Sie eine der Optionen.",
  errChooseSome: "Wählen Sie aus den Optionen.",
  errOtherText: "Geben Sie an, was „Sonstiges“ ist.",
  errTooShort: "Schreiben Sie mindestens {min} Zeichen.",
  errTooLong: "Schreiben Sie höchstens {max} Zeichen.",
  errNumber: "Geben Sie eine Zahl ein.",
  errWhole: "Geben Sie eine ganze Zahl ein.",
  errMin: "Geben Sie {min} oder mehr ein.",
  errMax: "Geben Sie {max} oder weniger ein.",
  errDate: "Geben Sie ein gültiges Datum ein, z. B. 2026-01-31.",
  errEmail: "Geben Sie eine E-Mail-Adresse ein, z. B. name@example.com.",
  errPickMin: "Wählen Sie mindestens {min}.",
  errPickMax: "Wählen Sie höchstens {max}.",
  errMatrix: "Beantworten Sie jede Zeile.",
  errRanking: "Geben Sie jedem Eintrag eine andere Position von 1 bis {n}.",
  other: "Sonstiges",
  otherSpecify: "Bitte angeben",
  position: "Position",
  stars: "{n} von {max} Sternen",
  notLikely: "Überhaupt nicht wahrscheinlich",
  veryLikely: "Äußerst wahrscheinlich",
  page: "Seite {n}",
  closed: "Diese Umfrage ist geschlossen",
  closedBody: "Sie nimmt keine Antworten mehr an. Danke für Ihr Interesse.",
  thanks: "Vielen Dank!",
  language: "Sprache",
};

const FR: Partial<typeof EN> = {
  next: "Suivant",
  back: "Retour",
  submit: "Envoyer",
  required: "(obligatoire)",
  optional: "(facultatif)",
  errorTitle: "Il y a un problème",
  errRequired: "Répondez à cette question.",
  errChoose: "Choisissez une des options.",
  errTooLong: "Écrivez au plus {max} caractères.",
  errNumber: "Saisissez un nombre.",
  errEmail: "Saisissez une adresse e-mail comme nom@exemple.com.",
  other: "Autre",
  otherSpecify: "Précisez",
  notLikely: "Pas du tout probable",
  veryLikely: "Extrêmement probable",
  page: "Page {n}",
  closed: "Ce questionnaire est clos",
  thanks: "Merci !",
  language: "Langue",
};

const ES: Partial<typeof EN> = {
  next: "Siguiente",
  back: "Atrás",
  submit: "Enviar",
  required: "(obligatorio)",
  optional: "(opcional)",
  errorTitle: "Hay un problema",
  errRequired: "Responda a esta pregunta.",
  errChoose: "Elija una de las opciones.",
  errTooLong: "Escriba como máximo {max} caracteres.",
  errNumber: "Introduzca un número.",
  errEmail: "Introduzca un correo electrónico como nombre@ejemplo.com.",
  other: "Otro",
  otherSpecify: "Especifique",
  notLikely: "Nada probable",
  veryLikely: "Muy probable",
  page: "Página {n}",
  closed: "Esta encuesta está cerrada",
  thanks: "¡Gracias!",
  language: "Idioma",
};

const TABLES: Record<string, Partial<typeof EN>> = { en: EN, de: DE, fr: FR, es: ES };

/** The form's own words for `lang` (by its primary subtag), with `{…}` filled in. */
export function ui(lang: string, key: UiKey, params: Record<string, string | number> = {}): string {
  const table = TABLES[lang] ?? TABLES[lang.split("-")[0]!] ?? EN;
  const s = table[key] ?? EN[key];
  return s.replace(/\{(\w+)\}/g, (m, k: string) => (params[k] !== undefined ? String(params[k]) : m));
}

/** Languages people name in their own words, for the language links. */
export const LANGUAGE_NAMES: Record<string, string> = {
  en: "English", de: "Deutsch", fr: "Français", es: "Español", it: "Italiano", nl: "Nederlands", pt: "Português", "pt-BR": "Português (Brasil)",
  pl: "Polski", sv: "Svenska", da: "Dansk", fi: "Suomi", nb: "Norsk", cs: "Čeština", ja: "日本語", zh: "中文", ko: "한국어", tr: "Türkçe",
};
