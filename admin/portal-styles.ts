// The Admin Portal's own stylesheet, on top of AdminJS's theme (served at /admin/portal.css, before
// the portal's login check: it holds nothing private and the login page loads it too).
//
// AdminJS's table cells break words anywhere (`word-break: break-word`), so the browser shrinks a
// column below its longest word and lists read "docu ment", "publis hed", "resource.cr eated". Cells
// break at spaces and hyphens instead, inside a word only when that word alone would not fit; a list
// wider than the page scrolls sideways rather than squeezing its columns, and cells keep 12 px at
// their sides instead of the theme's 24 px, so the lists fit a laptop screen. The selectors outweigh the
// theme's single class (its styles are injected after this sheet).
//
// A record page's header puts the title and the action buttons on one row and lets the title shrink
// to make room, so with four or five actions the buttons were drawn over the title ("Organization",
// "User details"). The row wraps instead: the title keeps its width and the buttons move below it
// (the title's bottom margin moves to the row, so a row that does not wrap is as high as before).
//
// The date picker announces a pick to screen readers ("Selected date: Sunday, November 29th, 2026")
// in a live region react-datepicker's own stylesheet hides; AdminJS's copy of that sheet lacks the
// rule, so the sentence showed inside the filter's field and made it taller. Hidden visually here,
// still read aloud.
//
// Notices are drawn over the top of the page; while an impersonation's banner is there they start
// below it, so a notice never hides its Exit impersonation button.
export const PORTAL_STYLESHEET_PATH = '/portal.css';

export const PORTAL_STYLESHEET = `
table.adminjs_Table td.adminjs_TableCell { word-break: normal; overflow-wrap: break-word; }
table.adminjs_Table .adminjs_TableCell { padding-left: 12px; padding-right: 12px; }
section:has(> table.adminjs_Table), div:has(> table.adminjs_Table) { overflow-x: auto; }
section.adminjs_ActionHeader section.adminjs_Box:has(> section > h2.adminjs_H2) {
  flex-wrap: wrap; row-gap: 16px; margin-bottom: 32px;
}
section.adminjs_ActionHeader section.adminjs_Box:has(> h2.adminjs_H2) { flex: 1 0 auto; }
section.adminjs_ActionHeader h2.adminjs_H2 { margin-bottom: 0; }
body:has([data-testid="impersonation-banner"]) [data-css="notice-wrapper"] { margin-top: 48px; }
.react-datepicker__aria-live {
  position: absolute; clip-path: circle(0); border: 0; height: 1px; width: 1px; margin: -1px;
  padding: 0; overflow: hidden; white-space: nowrap;
}
`;
