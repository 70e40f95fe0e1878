import indefinite from 'indefinite';

// Every message that puts "a"/"an" before a type or a name takes it from here, so the article
// follows the word's sound ("an Integer field", "a Boolean field", "an XYZ Data field").

/** "a" or "an" for the words that follow; the first word decides ("XRD-RDA" is read as "XRD"). */
export const article = (words: string): string => indefinite(words.trim().split(/[\s\-_/.]/)[0] || words, { articleOnly: true });

/** The words with their article: `withArticle('Integer')` → "an Integer". */
export const withArticle = (words: string): string => `${article(words)} ${words}`;
