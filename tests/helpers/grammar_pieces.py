"""Pieces of the judging grammars in every spelling a judge may read (entities in every
``html.unescape`` form, confusables, accents, controls, Markdown/HTML/LaTeX markup, any
whitespace), for property tests that build hostile text from them."""

PIECES = [
    *"[]<>|=AB012 \n\t\r:*\"_.()Tie",
    "[[", "]]", "Tie", "TIE", "**", ">>", "<<", "Answer:", "final verdict", "Submission", "Question",
    "The End of", "User Prompt", "Round 3", "im_start",
    # invisible: zero-width space, soft hyphen, word joiner, ZWJ, bidi override, BOM, combining mark
    "\u200b", "\u00ad", "\u2060", "\u200d", "\u202e", "\ufeff", "\u0301", "\u3164",
    # compatibility forms NFKC folds
    "\uff3b", "\uff3d", "\uff1c", "\uff1e", "\uff5c", "\uff1d", "\uff21", "\uff22", "\uff12", "\U0001d7ce",
    "\u3000", "\u00a0", "\u2028", "\x1c", "\u2474",
    # look-alikes and entities
    "\u2039", "\u203a", "\u0391", "\u0412", "\u3010", "\u3011", "\u01c0",
    "&gt;", "&lt;", "&#91;", "&#x5d;", "&vert;", "&amp;", "&#50;", "&",
    # entities without semicolons or with leading zeros, markup a renderer hides, LaTeX signs
    "&gt", "&lt", "&#0000062;", "&#x00003e", "&#00050", "&lbrack;", "**", "`", "_", "~~", "<b>",
    "</b>", "<sup>", "<!--", "-->", "\\text{", "}", "\\gt", "\\[", "\\]", "$",
    # confusables, small capitals, accents, controls, private use, other spaces and digits
    "≫", "»", "ᴀ", "ʙ", "Á", "Т", "і", "е", "∣",
    "〖", "〗", "\x00", "\x7f", "\ue000", "\u2003", "\x1f", "२", "١",
    "Criteria Satisfied:", "criteria\u2003satisfied :", "**Criteria Satisfied:**", "[1, 2, 7]",
    "final answer", "Final\u2003Answer:", "[question]", "[submission 1]", "Tie", "[",
    # the annotation's label and score and ScaleEval's named verdicts in look-alike letters and digits
    "\u0421riteria", "\u0405atisfied", "Criteria", "satisfied", "&#67;riteria", "\uff17", "'7'", ", ",
    "7", "\u0661", "\u0430nswer:", "\u041eption", "verdict", "Option 1:", "\n2\n", "\n\n",
]  # fmt: skip
