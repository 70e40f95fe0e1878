/** The Sync panel's Sync now button: where the focus goes when the last entry of a list in the panel is done. */
export const syncNowButton = (inPanel: HTMLElement) => inPanel.closest('aside')?.querySelector<HTMLElement>('.sync-now button');
