"""Moodle's GIFT text format, read into quiz-file dicts and written from them.

GIFT is what Moodle's question bank exports as text (docs.moodle.org/en/GIFT_format).
The kinds of questions this site has are read; each question of another kind
is refused on its own, with its line, and the rest of the file is read. Reading
follows Moodle's own importer (qformat_gift) where GIFT leaves room for doubt,
so a file reads here as it reads there.

No package on PyPI was taken for this: the GIFT parsers there (pygiftparser,
last released in 2017, and its forks) are not kept up.
"""

import re
from dataclasses import dataclass, field

from django.utils import translation
from django.utils.translation import gettext

from quizzes import kinds
from quizzes.interchange import moodle_common as common
from quizzes.interchange.moodle_common import MAX_QUESTIONS, ContentFileError, Origin, Parsed

__all__ = [
    "MAX_BYTES",
    "MAX_LINES",
    "MAX_QUESTIONS",
    "ContentFileError",
    "Parsed",
    "gift_export",
    "gift_parse",
]

MAX_BYTES = 5 * 2**20  # A GIFT file of 5 MB holds tens of thousands of questions.
MAX_LINES = 200_000  # Counted before reading: 5,000 questions (MAX_QUESTIONS) take about 50,000.

_FORMATS = {
    "html": common.FORMAT_HTML,
    "markdown": common.FORMAT_MARKDOWN,
    "moodle": common.FORMAT_PLAIN,
    "plain": common.FORMAT_PLAIN,
}

# GIFT's escapes (\~ \= \# \{ \} \: and \n for a new line) stand for their character
# while the question is split, as noncharacters that no text holds; `\\` is a backslash.
_ESCAPES = {char: chr(0xFDD1 + number) for number, char in enumerate("\\~=#{}:n")}
_UNESCAPES = {marker: "\n" if char == "n" else char for char, marker in _ESCAPES.items()}
# Where a missing-word question's answers were, while its text is read; then a blank.
_BLANK = "\ufdd9"
BLANK_MARKDOWN = "\\_" * 5  # "_____", as Moodle shows it, escaped: never emphasis or a rule.


def _escape_pre(text: str) -> str:
    return re.sub(r"\\([\\~=#{}:n])", lambda match: _ESCAPES[match.group(1)], text)


def _escape_post(text: str) -> str:
    return re.sub("[\ufdd1-\ufdd8]", lambda match: _UNESCAPES[match.group()], text)


def _place(line: int, name: str) -> str:
    """Where a question is: "line 12", or "line 12 (“Q1”)" when it has a ::title::."""
    if name:
        return gettext("line %(line)s (“%(name)s”)") % {"line": line, "name": name}
    return gettext("line %(line)s") % {"line": line}


@dataclass
class _Block:
    """A question's lines, without comments: (line number, text) each."""

    lines: list[tuple[int, str]]

    def line_at(self, text: str, offset: int) -> int:
        """The line number in the file of `offset` in the joined text of the block."""
        return self.lines[text.count("\n", 0, offset)][0]


@dataclass
class _Reader:
    language: str
    quizzes: common.QuizCollector
    problems: list[tuple[str, str]]
    warnings: list[tuple[str, str]]
    files: list[str] = field(default_factory=list)  # Of the question being read.

    def text(self, raw: str, default_format: str, place: str) -> tuple[dict[str, str], str]:
        """A text with its optional [format] first, as {language: Markdown}; and its format."""
        raw = raw.strip()
        text_format = default_format
        match = re.match(r"\[(\w+)\]", raw)
        if match and match.group(1) in _FORMATS:
            text_format = _FORMATS[match.group(1)]
            raw = raw[match.end() :]
        texts, dropped = common.to_markdown_texts(
            _escape_post(raw), text_format, language=self.language, image_src=self.file
        )
        texts = {code: text.replace(_BLANK, BLANK_MARKDOWN) for code, text in texts.items()}
        if dropped:
            message = gettext("HTML tags dropped, their text kept: %(tags)s.")
            self.warnings.append((place, message % {"tags": ", ".join(dropped)}))
        return texts, text_format

    def block(self, block: _Block) -> None:
        first_line = block.lines[0][0]
        joined = "\n".join(text for _number, text in block.lines)
        problem = common.too_long(len(joined))
        if problem:
            return self.refuse(_place(first_line, ""), problem)
        joined = _escape_pre(joined)
        if joined.startswith("$CATEGORY:"):
            head, _newline, rest = joined.partition("\n")
            self.quizzes.category(_escape_post(head.removeprefix("$CATEGORY:")).strip())
            if not rest.strip():
                return
            offset = len(head) + 1
            first_line = block.line_at(joined, offset)
            joined = joined[offset:]
            block = _Block([line for line in block.lines if line[0] >= first_line])
        start = 0
        name = ""
        if joined.startswith("::"):
            end = joined.find("::", 2)
            if end >= 0:
                name = _escape_post(joined[2:end]).strip()
                start = end + 2
            else:
                start = 2
        warnings = len(self.warnings)
        problems = len(self.problems)
        self.question(joined, start, block, _place(first_line, name), name)
        if len(self.problems) > problems:
            del self.warnings[warnings:]  # What a refused question would have lost.

    def refuse(self, place: str, message: str) -> None:
        self.problems.append((place, message))

    def question(self, text: str, start: int, block: _Block, place: str, name: str) -> None:
        """Read one question, its type told as Moodle's importer tells it: no braces, a
        description; empty braces, an essay; `#` first, numerical; a `~`, multiple choice;
        `=` and `->`, matching; T, F, TRUE or FALSE, true/false; else short answer."""
        opening = text.find("{", start)
        closing = text.find("}", start)
        if opening < 0 and closing < 0:
            return self.refuse(place, common.type_refused("description"))
        if closing < 0:
            message = gettext("this { is not closed by a } before the next blank line.")
            return self.refuse(_place(block.line_at(text, opening), name), message)
        if opening < 0 or closing < opening:
            message = gettext("a } closes no {.")
            return self.refuse(_place(block.line_at(text, closing), name), message)
        # As in Moodle, answers in the middle of the text leave a blank in its place.
        missing_word = not text.endswith("}")
        rest = (_BLANK if missing_word else "") + text[closing + 1 :]
        answers = text[opening + 1 : closing].strip()
        explanation = ""
        separator = answers.rfind("####")
        if separator >= 0:
            explanation = answers[separator + 4 :]
            answers = answers[:separator].strip()
        self.files = []
        prompt, text_format = self.text(text[start:opening] + rest, common.FORMAT_PLAIN, place)
        question = {"prompt": prompt or {self.language: ""}}
        explanation, _format = self.text(explanation, text_format, place)
        if explanation:
            question["explanation"] = explanation
        if not answers:
            return self.refuse(place, common.type_refused("essay", missing_word=missing_word))
        problem = common.too_many_answers(answers.count("~") + answers.count("="))
        if problem:
            return self.refuse(place, problem)
        kind = kinds.gift_claimant(answers)
        if kind is None:
            moodle_type = "match" if "=" in answers and "->" in answers else "shortanswer"
            return self.refuse(place, common.type_refused(moodle_type, missing_word=missing_word))
        read = kind.gift_read(answers, _QuestionTexts(self, place), text_format)
        if read.problem:
            return self.refuse(place, read.problem)
        if self.files:
            message = gettext(
                "the text shows the file “%(name)s”, which a GIFT file can't hold "
                "(Moodle XML holds the files of its questions)."
            )
            return self.refuse(place, message % {"name": self.files[0]})
        self.warnings += [(place, warning) for warning in read.warnings]
        if name:
            question["key"] = name
        self.quizzes.add(question | read.fields, Origin(place=place, name=name))
        return None

    def file(self, reference: str) -> str:
        """A Moodle file a text shows ("@@PLUGINFILE@@/x.png"): GIFT holds none."""
        self.files.append(common.pluginfile_name(reference))
        return reference


@dataclass
class _QuestionTexts:
    """The texts of one question, for its kind to read (quizzes.kinds.base.GiftReading)."""

    reader: _Reader
    place: str

    @property
    def language(self) -> str:
        return self.reader.language

    def text(self, source: str, inherited_format: str) -> tuple[dict[str, str], str]:
        return self.reader.text(source, inherited_format, self.place)

    def plain(self, source: str) -> str:
        return _escape_post(source).strip()


def _blocks(text: str) -> list[_Block]:
    """The file's questions: runs of lines between blank lines, without comment lines."""
    blocks, lines = [], []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line:
            if lines:
                blocks.append(_Block(lines))
            lines = []
        elif not line.startswith("//"):
            lines.append((number, line))
    if lines:
        blocks.append(_Block(lines))
    return blocks


def _category_only(block: _Block) -> bool:
    return len(block.lines) == 1 and block.lines[0][1].startswith("$CATEGORY:")


def gift_parse(text: str | bytes, *, language: str, quiz_slug: str | None = None) -> Parsed:
    """Read a GIFT file into quiz-file dicts whose texts are in `language`.

    Each `$CATEGORY:` starts a quiz, named after the category's last part; with
    `quiz_slug`, every question goes into that one quiz instead. Questions that
    can't be imported are left out and listed in `problems`; the file as a whole
    is refused (ContentFileError) only when it is too big or not UTF-8 text.
    """
    common.language_check(language)
    if isinstance(text, bytes):
        common.size_check(len(text), MAX_BYTES)
        text = common.utf8_decode(text)
    else:
        common.size_check(len(text), MAX_BYTES)
        common.size_check(len(text.encode("utf-8", "surrogatepass")), MAX_BYTES)
        text = text.removeprefix("\ufeff")
    # The noncharacters that stand for escapes while a question is split can't be in a text.
    text = re.sub("[\ufdd0-\ufdd9]", "\ufffd", text.replace("\r\n", "\n").replace("\r", "\n"))
    quizzes = common.QuizCollector(language=language, quiz_slug=quiz_slug)
    reader = _Reader(language=language, quizzes=quizzes, problems=[], warnings=[])
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        message = gettext("The file has %(count)s lines; at most %(limit)s are read.")
        raise ContentFileError([("", message % {"count": lines, "limit": MAX_LINES})])
    blocks = _blocks(text)
    common.questions_check(sum(not _category_only(block) for block in blocks))
    for block in blocks:
        reader.block(block)
    return Parsed(
        quizzes=quizzes.quizzes(),
        origins=quizzes.origins(),
        problems=reader.problems,
        warnings=reader.warnings,
    )


def _escape(text: str) -> str:
    """A text as GIFT writes it: its special characters escaped, new lines as \\n."""
    text = re.sub(r"([\\~=#{}:])", r"\\\1", text.replace("\r", ""))
    return text.replace("\n", "\\n")


def _text(text: str) -> str:
    """A Markdown text inside a question written with [markdown]: it takes that format,
    unless it starts with a "[" that would read as another format's name."""
    return ("[markdown]" if text.startswith("[") else "") + _escape(text)


@dataclass(frozen=True)
class _Writing:
    """A question's texts as GIFT writes them, for its kind (quizzes.kinds.base.GiftWriting)."""

    language: str

    def plain(self, value) -> str:
        return common.text_in(value, self.language)

    def text(self, value) -> str:
        return _text(self.plain(value))


def _left_out(question: dict, name: str | None, language: str) -> str:
    """The comment a question GIFT can't hold (ordering, calculated) is written as, in its place:
    named by its name, key or its prompt's first line."""
    name = name or common.text_in(question.get("prompt"), language).strip().split("\n")[0][:80]
    with translation.override(language):
        kind = kinds.get(question["kind"]).label
        message = gettext(
            "Left out: “%(name)s”, a question of kind “%(kind)s”, which GIFT can’t hold."
        )
        return message % {"name": " ".join(str(name).split()), "kind": kind}


def gift_export(data: dict, *, language: str) -> str:
    """A quiz-file dict as GIFT, its texts in `language`: reading it back gives the same
    questions (prompts, explanations, choices, which are correct, feedback, kinds).

    GIFT has no place for the rest: the quiz's description, level, pass mark and
    guide paths, the questions' guide URLs, and the other languages. The quiz's
    Moodle category (else its title) becomes the category, a question's name (else its
    key) its ::title::. A true-or-false question whose choices are not
    named True and False in `language` is written as a single-choice one. A question of a
    kind GIFT has no place for (ordering, calculated) is left out, a comment naming it in
    its place.
    """
    common.language_check(language)
    lines = [f"$CATEGORY: {_escape(common.category_path(data, language))}", ""]
    writing = _Writing(language)
    for question in data.get("questions", []):
        name = question.get("name") or question.get("key")
        if not kinds.get(question.get("kind", kinds.DEFAULT)).in_gift:
            lines += [f"// {_left_out(question, name, language)}", ""]
            continue
        prompt = f"::{_escape(name)}::" if name else ""
        prompt += "[markdown]" + _escape(common.text_in(question.get("prompt"), language))
        explanation = common.text_in(question.get("explanation"), language)
        general = f"####{_text(explanation)}" if explanation else ""
        kind = kinds.get(question.get("kind", kinds.DEFAULT)).exported_as(question, writing)
        first, *rest = kind.gift_write(question, writing, general)
        lines += [prompt + first, *rest, ""]
    return "\n".join(lines)
