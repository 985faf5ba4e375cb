/**
 * The routes whose top bar has the installed app's back button (spec §2): members-id,
 * likes-type, likes-m-id, credits, credits-id-paymentmethod. Apart from base/backButton.ts
 * so that the base entry can tell whether a page needs that module before importing it.
 */
export const BACK_BUTTON_ROUTES: ReadonlySet<string> = new Set([
  "members-id",
  "likes-type",
  "likes-m-id",
  "credits",
  "credits-id-paymentmethod",
]);
