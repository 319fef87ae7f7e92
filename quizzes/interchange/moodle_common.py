"""What reading GIFT and Moodle XML share: the result, the error, and Moodle's text formats.

These modules only convert between Moodle's files and the quiz-file dict of
docs/quiz-format.md; the quiz-file importer checks and writes what they give.
They import from the quiz-file format only its error type.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import quote, unquote

from django.conf import settings
from django.utils import translation
from django.utils.text import slugify
from django.utils.translation import gettext

from quizzes.interchange.quizfile import ARCHIVE_IMAGES, QuizFileError

SLUG_MAX_LENGTH = 100  # Quiz.slug's max_length.
# Limits that keep reading any file within the size limit to about a second.
MAX_QUESTIONS = 5_000  # In one file.
MAX_TEXT = 100_000  # Characters in one text (GIFT: in one question).
MAX_ANSWERS = 100  # In one question.


class ContentFileError(QuizFileError):
    """A GIFT or Moodle XML file that can't be read at all: nothing in it is imported.

    `errors` lists every problem as (place, message), as the quiz-file importer's do;
    place is empty for the file as a whole.
    """


@dataclass(frozen=True)
class Origin:
    """Where an imported question came from, for the preview and for matching translations.

    `place` is how the messages name it ("line 12", "question 4"); `name` is its
    Moodle name (GIFT's ::title::), never shown to learners, "" when it has none.
    """

    place: str
    name: str


@dataclass(frozen=True)
class Parsed:
    """What a GIFT or Moodle XML file holds, as quiz-file dicts.

    `quizzes` are dicts in the format of docs/quiz-format.md, their texts under the
    language asked for. `origins[i][j]` tells where question j of quiz i came from.
    `problems` lists what was refused (place, message): those questions are left
    out, the rest is there. `warnings` lists what was imported with a loss.
    `images` maps the file names that texts reference as `images/NAME` to their bytes.
    """

    quizzes: list[dict]
    origins: list[list[Origin]]
    problems: list[tuple[str, str]]
    warnings: list[tuple[str, str]]
    images: dict[str, bytes] = field(default_factory=dict)


def language_check(language: str) -> None:
    codes = [code for code, _name in settings.LANGUAGES]
    if language not in codes:
        message = gettext("Unknown language %(language)s (the site speaks %(languages)s).")
        raise ContentFileError(
            [("", message % {"language": language, "languages": ", ".join(codes)})]
        )


def size_check(size: int, limit: int) -> None:
    """Refuse a file over the limit before reading any of it."""
    if size > limit:
        message = gettext("The file is %(size)s MB; at most %(limit)s MB can be imported.")
        raise ContentFileError(
            [("", message % {"size": round(size / 2**20, 1), "limit": round(limit / 2**20, 1)})]
        )


def questions_check(count: int) -> None:
    if count > MAX_QUESTIONS:
        message = gettext(
            "The file holds %(count)s questions; at most %(limit)s are imported at once."
        )
        raise ContentFileError([("", message % {"count": count, "limit": MAX_QUESTIONS})])


def too_long(length: int) -> str:
    """The problem of a question with a text of `length` characters, or ""."""
    if length <= MAX_TEXT:
        return ""
    message = gettext("a text of %(length)s characters: at most %(limit)s are read.")
    return message % {"length": length, "limit": MAX_TEXT}


def too_many_answers(count: int) -> str:
    if count <= MAX_ANSWERS:
        return ""
    message = gettext("%(count)s answers: at most %(limit)s are read.")
    return message % {"count": count, "limit": MAX_ANSWERS}


def utf8_decode(content: bytes) -> str:
    """The text of a UTF-8 file; a file in another encoding, or mixing two, is refused.

    The message gives the byte position and line of the first byte that isn't
    UTF-8, which is where a file pasted together from two encodings breaks.
    """
    if content.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ContentFileError([("", gettext("The file is UTF-16 text; save it as UTF-8."))])
    if b"\x00" in content:
        raise ContentFileError([("", gettext("This is a binary file, not a text file."))])
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = content.count(b"\n", 0, error.start) + 1
        message = gettext("The file is not UTF-8 text (invalid byte at position %(position)s).")
        raise ContentFileError(
            [(gettext("line %(line)s") % {"line": line}, message % {"position": error.start + 1})]
        ) from None


def category_title(path: str) -> str:
    """The last part of a Moodle category path: "$course$/top/Networks" is "Networks".

    Moodle writes a "/" inside a category name as "//".
    """
    parts = [part.replace("//", "/").strip() for part in re.split(r"(?<!/)/(?!/)", path)]
    parts = [part for part in parts if part]
    return parts[-1] if parts else ""


def quiz_slug_for(title: str, taken: set[str], numbers: dict[str, int]) -> str:
    """A slug for a quiz made from a category, unlike the ones `taken`, which it joins.

    `numbers` keeps the last number tried after each slug, so that thousands of
    categories of one name don't try the same numbers again each time.
    """
    base = slugify(title)[:SLUG_MAX_LENGTH].strip("-") or "quiz"
    slug, number = base, numbers.get(base, 1)
    while slug in taken:
        number += 1
        suffix = f"-{number}"
        slug = base[: SLUG_MAX_LENGTH - len(suffix)] + suffix
    numbers[base] = number
    taken.add(slug)
    return slug


def default_quiz_title(language: str) -> str:
    with translation.override(language):
        return gettext("Imported questions")


def text_in(value, language: str) -> str:
    """A translated field of a quiz-file dict in one language ("" when it has none there)."""
    if isinstance(value, str):
        return value if language == settings.LANGUAGE_CODE else ""
    if isinstance(value, dict):
        return value.get(language) or ""
    return ""


_LINE_START = re.compile(r"^([ \t]*)(#{1,6}(?=\s|$)|>|[-+](?=\s|$)|\d+(?=[.)](?:\s|$)))", re.M)


def markdown_escape(text: str, *, at_line_start: bool = True) -> str:
    """Plain text as Markdown that shows the same characters.

    Backslash, backtick, asterisk and brackets are always escaped; an underscore
    unless it is inside a word, `<` and `&` where they would start a tag or an
    entity, and what starts a line as a heading, quote or list item would: `# `,
    `>`, `- `, `+ `, `1. `.
    """
    text = re.sub(r"([\\`*\[\]])", r"\\\1", text)
    text = re.sub(r"(?<![^\W_])_|_(?![^\W_])", r"\\_", text)
    text = re.sub(r"<(?=[A-Za-z/!?])", r"\\<", text)
    text = re.sub(r"&(?=#?\w+;)", r"\\&", text)
    if at_line_start:
        return _LINE_START.sub(_line_start_escape, text)
    head, newline, rest = text.partition("\n")
    return head + newline + _LINE_START.sub(_line_start_escape, rest) if newline else head


def _line_start_escape(match: re.Match) -> str:
    space, mark = match.groups()
    if mark.isdigit():
        return space + mark + "\\"
    return space + "\\" + mark


# Moodle's names of text formats, in GIFT's [name] and in Moodle XML's format attribute.
FORMAT_HTML = "html"
FORMAT_MARKDOWN = "markdown"
FORMAT_PLAIN = "plain"  # Also Moodle's own "moodle" auto-format.


@dataclass(frozen=True)
class Converted:
    """A text as Markdown, and the names of the HTML tags that were dropped from it."""

    text: str
    dropped: tuple[str, ...] = ()


def to_markdown(
    text: str, text_format: str, *, image_src: Callable[[str], str] | None = None
) -> Converted:
    """A Moodle text of any format as the Markdown our texts are.

    `image_src` turns a reference to a file of the Moodle file
    ("@@PLUGINFILE@@/x.png") into ours ("images/x.png").
    """
    if text_format == FORMAT_HTML:
        return html_to_markdown(text, image_src=image_src)
    if image_src is not None:
        text = re.sub(r"@@PLUGINFILE@@/[^\s)\"'<>]+", lambda m: image_src(m.group()), text)
    if text_format == FORMAT_MARKDOWN:
        return Converted(text.strip())
    return Converted(markdown_escape(text.strip()))


def pluginfile_name(reference: str) -> str:
    """The file name in a Moodle reference: "@@PLUGINFILE@@/my%20pic.png" is "my pic.png"."""
    return unquote(reference.removeprefix("@@PLUGINFILE@@/"))


def image_reference(name: str) -> str:
    """How our Markdown refers to an imported file: "images/my%20pic.png"."""
    return ARCHIVE_IMAGES + quote(name)


def html_to_markdown(text: str, *, image_src: Callable[[str], str] | None = None) -> Converted:
    """Moodle's HTML as Markdown: the common tags become Markdown, the others only their text.

    What is converted: p, div, br, b, strong, i, em, code, pre, a, ul, ol, li, img.
    Script and style elements are dropped with what they hold; every other tag is
    dropped keeping its text, and named in `dropped` so the caller can say so.
    """
    converter = _HTMLToMarkdown(image_src=image_src)
    # Python's HTML parser takes quadratic time over many unclosed tags ("<a <a <a"):
    # a "<" that starts no whole tag or comment is given to it as text.
    converter.feed(_STRAY_LT.sub("&lt;", text.replace(_BREAK, "\ufffd")))
    converter.close()
    return Converted(converter.markdown(), tuple(sorted(converter.dropped)))


_STRAY_LT = re.compile(r"<(?!/?[A-Za-z][^<>]*>|!--(?:[^<-]|-(?!->))*-->)")
_BREAK = "\ufdd0"  # A noncharacter: it stands for a line break until the text is done.


class _HTMLToMarkdown(HTMLParser):
    _INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*"}
    _BLOCK = {"p", "div"}
    _SKIP = {"script", "style"}
    _IGNORED = {"html", "body"}  # Wrappers whose loss loses nothing.

    def __init__(self, *, image_src: Callable[[str], str] | None):
        super().__init__(convert_charrefs=True)
        self.image_src = image_src
        self.parts: list[str] = []
        self.dropped: set[str] = set()
        self.lists: list[list] = []  # [tag, next number] of each open list.
        self.links: list[str | None] = []
        self.pre = 0
        self.code = 0
        self.skip = 0
        self.written = False  # Whether anything but white space was written yet.

    def _append(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.written = self.written or bool(text.strip())

    def _tail(self, length: int) -> str:
        """The last characters written, read from the last parts only: a long text
        made of many parts is never joined again."""
        tail = ""
        for part in reversed(self.parts):
            tail = part + tail
            if len(tail) >= length:
                break
        return tail[-length:]

    def _at_line_start(self) -> bool:
        return not self.written or self._tail(1) == "\n"

    def _rstrip_spaces(self) -> None:
        while self.parts and not self.parts[-1].rstrip(" "):
            self.parts.pop()
        if self.parts:
            self.parts[-1] = self.parts[-1].rstrip(" ")

    def _block(self) -> None:
        self._rstrip_spaces()
        tail = self._tail(2)
        if self.written and tail != "\n\n":
            self.parts.append("\n" if tail.endswith("\n") else "\n\n")

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in self._SKIP:
            self.skip += 1
            self.dropped.add(tag)
        elif tag in self._BLOCK:
            self._block()
        elif tag == "br" and self.pre:
            self.parts.append("\n")
        elif tag == "br":
            self._rstrip_spaces()
            self.parts.append(_BREAK + "\n")
        elif tag in self._INLINE:
            self._append(self._INLINE[tag])
        elif tag == "code":
            self.code += 1
            if not self.pre:
                self._append("`")
        elif tag == "pre":
            self._block()
            self._append("```\n")
            self.pre += 1
        elif tag == "a":
            href = attributes.get("href")
            if href:
                self._append("[")
            self.links.append(href)
        elif tag in ("ul", "ol"):
            if not self.lists:
                self._block()
            self.lists.append([tag, 1])
        elif tag == "li":
            self._list_item()
        elif tag == "img":
            self._image(attributes)
        elif tag not in self._IGNORED:
            self.dropped.add(tag)

    def _list_item(self) -> None:
        if self._tail(1) not in ("", "\n"):
            self.parts.append("\n")
        if not self.lists:
            self.lists.append(["ul", 1])
        kind = self.lists[-1]
        indent = "   " * (len(self.lists) - 1)
        if kind[0] == "ol":
            self._append(f"{indent}{kind[1]}. ")
            kind[1] += 1
        else:
            self._append(f"{indent}- ")

    def _image(self, attributes: dict) -> None:
        src = attributes.get("src") or ""
        if self.image_src is not None and src.startswith("@@PLUGINFILE@@/"):
            src = self.image_src(src)
        alt = markdown_escape(attributes.get("alt") or "", at_line_start=False)
        if src.startswith(("http://", "https://")):  # The site shows only its own images.
            self.dropped.add("img")
            self._append(f"[{alt or src}]({src})")
            return
        self._append(f"![{alt}]({src})")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in ("br", "img"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in self._SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self._BLOCK:
            self._block()
        elif tag in self._INLINE:
            self._append(self._INLINE[tag])
        elif tag == "code":
            self.code = max(0, self.code - 1)
            if not self.pre:
                self._append("`")
        elif tag == "pre" and self.pre:
            self.pre -= 1
            self._append("```" if self._tail(1) == "\n" else "\n```")
            self._block()
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href:
                if self.image_src is not None and href.startswith("@@PLUGINFILE@@/"):
                    href = self.image_src(href)
                self._append(f"]({href})")
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            if not self.lists:
                self._block()

    def handle_data(self, data):
        if self.skip:
            return
        if self.pre:
            self._append(data)
            return
        data = re.sub(r"\s+", " ", data)
        if self._at_line_start():
            data = data.lstrip()
        if self.code:
            self._append(data)
        else:
            self._append(markdown_escape(data, at_line_start=self._at_line_start()))

    def markdown(self) -> str:
        lines = [line.rstrip() for line in "".join(self.parts).split("\n")]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        # A line break is only kept between two lines of one paragraph.
        text = re.sub(_BREAK + r"\n(?=\n|$)|^(" + _BREAK + r"\n)+", "\n", text).strip()
        return text.replace(_BREAK, "\\")


@dataclass
class QuizCollector:
    """Sorts the questions read into quizzes: one per Moodle category, or all into one.

    A category's quiz is made when its first question is added, so a category
    without questions that could be imported makes no quiz.
    """

    language: str
    quiz_slug: str | None

    def __post_init__(self):
        self._quizzes: dict[str, dict] = {}
        self._origins: dict[str, list[Origin]] = {}
        self._descriptions: dict[str, str] = {}
        self._category = ""
        self._slugs: set[str] = set()
        self._numbers: dict[str, int] = {}

    def category(self, path: str, description: str = "") -> None:
        self._category = path
        if description:
            self._descriptions.setdefault(path, description)

    def add(self, question: dict, origin: Origin) -> None:
        key = "" if self.quiz_slug else self._category
        if key not in self._quizzes:
            title = category_title(self._category) or default_quiz_title(self.language)
            slug = self.quiz_slug or quiz_slug_for(title, self._slugs, self._numbers)
            quiz = {"slug": slug, "title": {self.language: title}}
            description = self._descriptions.get(self._category)
            if description:
                quiz["description"] = {self.language: description}
            self._quizzes[key] = quiz | {"questions": []}
            self._origins[key] = []
        self._quizzes[key]["questions"].append(question)
        self._origins[key].append(origin)

    def quizzes(self) -> list[dict]:
        return list(self._quizzes.values())

    def origins(self) -> list[list[Origin]]:
        return list(self._origins.values())
