"""Texts to HTML: Markdown, code and maths, sanitised; French typography; uploaded images;
their template tags. Knows nothing of quizzes: it takes text and gives HTML."""
