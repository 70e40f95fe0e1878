/**
 * What an in-app confirmation asks (ui/Dialog.tsx): its title, text and confirm button. Apart
 * from the dialog so that code without JSX (a sync conflict's choices) can word one too.
 */
export interface Question {
  title: string;
  body: string;
  confirm: string;
  danger?: boolean;
}
