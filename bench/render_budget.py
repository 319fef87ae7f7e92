"""The rendering budget, timed: the slowest text the renderer's limits allow, and the slowest
quiz the quiz budget allows (quizzes/markup/rendering.py).

    .venv/bin/python bench/render_budget.py

For each of `HIGHLIGHTED_LEXERS` it times code of `MAX_HIGHLIGHTED_LENGTH` characters written
to slow lexers down (one character repeated, a pair of quotes, a comment opener, short lines…)
and prints the slowest; then the slowest whole text it found (that code and Markdown that
makes markdown-it backtrack, up to `MAX_SOURCE_LENGTH`), and what a quiz made of such texts up
to `MAX_QUIZ_SOURCE_LENGTH` takes to render: the first page after an edit that shows the whole
quiz (its page, the results' review), once per content change, process and language.
"""

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quizsite.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only")

import django  # noqa: E402

django.setup()

from quizzes.markup import rendering  # noqa: E402

# Units repeated up to the length timed: each one slows some lexer or markdown-it down.
UNITS = [
    "a", "a\n", " ", "\\", "'", '"', "`", "'''", '"""', "/*", "<!--", "${", "$(", "#", "%", "@",
    "0x", "\t-", "a = b\n", "(\"'[{<", "[", "*", "_", "<", "{", "-",
]  # fmt: skip
ROUNDS = 3


def _best(text: str) -> float:
    """The best of `ROUNDS` times to render `text`, in seconds."""
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        rendering.render(text, language="fr")
        best = min(best, time.perf_counter() - start)
    return best


def _repeated(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def _code(lexer: str, unit: str) -> str:
    body = _repeated(unit, rendering.MAX_HIGHLIGHTED_LENGTH - 1).replace("`", "'")
    return f"```{lexer}\n{body}\n```\n"


def main() -> None:
    ms = 1000
    slowest_code: list[tuple[float, str, str]] = []
    for lexer in sorted(rendering.HIGHLIGHTED_LEXERS):
        worst = max((_best(_code(lexer, unit)), unit) for unit in UNITS)
        slowest_code.append((worst[0], lexer, worst[1]))
    slowest_code.sort(reverse=True)
    print(f"Code of {rendering.MAX_HIGHLIGHTED_LENGTH:,} characters, slowest per lexer:")
    for seconds, lexer, unit in slowest_code[:8]:
        print(f"  {lexer:12} {seconds * ms:6.1f} ms  (repeating {unit!r})")
    print(f"  … {len(slowest_code)} lexers, the fastest {slowest_code[-1][0] * ms:.1f} ms")

    _seconds, lexer, unit = slowest_code[0]
    code = _code(lexer, unit)
    room = rendering.MAX_SOURCE_LENGTH - len(code) - 2
    texts = {
        "brackets": _repeated("[", rendering.MAX_SOURCE_LENGTH - 1),
        "emphasis": _repeated("*a_", rendering.MAX_SOURCE_LENGTH - 1),
        "code and brackets": code + "\n\n" + _repeated("[", room),
    }
    timed = {name: _best(text) for name, text in texts.items()}
    name, seconds = max(timed.items(), key=lambda item: item[1])
    length = len(texts[name])
    print(f"Slowest text the limits allow: {name}, {length:,} characters, {seconds * ms:.1f} ms")
    quiz = rendering.MAX_QUIZ_SOURCE_LENGTH / length * seconds
    print(
        f"A quiz of such texts at the budget ({rendering.MAX_QUIZ_SOURCE_LENGTH:,} characters"
        f" a language): {quiz:.2f} s to render its whole pages once"
    )


if __name__ == "__main__":
    main()
