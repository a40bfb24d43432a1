/** The formats Ghostscript reads as PostScript programs (postscript.ts), and those it writes from a PDF; no engine is loaded by importing this. */
export const POSTSCRIPT_INPUTS = ['eps', 'ps', 'ai'] as const;
export const POSTSCRIPT_OUTPUTS = ['eps', 'ps'] as const;
