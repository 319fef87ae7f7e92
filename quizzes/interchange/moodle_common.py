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
from django.utils.translation import gettext, pgettext_lazy

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


# What the messages call each Moodle question type (Moodle XML's <question type="…">, and
# the types Moodle's GIFT importer tells apart), as Moodle names them.
MOODLE_TYPES = {
    "calculated": pgettext_lazy("Moodle type", "a calculated question"),
    "calculatedmulti": pgettext_lazy("Moodle type", "a calculated multichoice question"),
    "calculatedsimple": pgettext_lazy("Moodle type", "a simple calculated question"),
    "ddimageortext": pgettext_lazy("Moodle type", "a drag and drop onto image question"),
    "ddmarker": pgettext_lazy("Moodle type", "a drag and drop markers question"),
    "ddwtos": pgettext_lazy("Moodle type", "a drag and drop into text question"),
    "description": pgettext_lazy("Moodle type", "a description without answers"),
    "essay": pgettext_lazy("Moodle type", "an essay question"),
    "gapselect": pgettext_lazy("Moodle type", "a select missing words question"),
    "match": pgettext_lazy("Moodle type", "a matching question"),
    "numerical": pgettext_lazy("Moodle type", "a numerical question"),
    "ordering": pgettext_lazy("Moodle type", "an ordering question"),
    "random": pgettext_lazy("Moodle type", "a random question"),
    "randomsamatch": pgettext_lazy("Moodle type", "a random short-answer matching question"),
    "shortanswer": pgettext_lazy("Moodle type", "a short-answer question"),
}


def type_refused(moodle_type: str, *, missing_word: bool = False, named: bool = False) -> str:
    """Why a question of a Moodle type this site lacks is left out, the type named as Moodle
    names it ("a numerical question: this site has no such question."); `named` adds the
    type as Moodle XML writes it, `missing_word` that its answers are in the middle of its
    text (GIFT)."""
    name = MOODLE_TYPES.get(moodle_type)
    if name is None:
        message = gettext("a question of Moodle type “%(type)s”: this site has no such question.")
        return message % {"type": moodle_type}
    if named:
        message = gettext("%(name)s (Moodle type “%(type)s”): this site has no such question.")
    elif missing_word:
        message = gettext("%(name)s (missing word): this site has no such question.")
    else:
        message = gettext("%(name)s: this site has no such question.")
    return message % {"name": name, "type": moodle_type}


def choice_where(number: int) -> str:
    """ ", choice 2": how a choice's place follows its question's, as the quiz-file checks
    write it ("question 4, choice 2")."""
    place = gettext("question %(question)s, choice %(choice)s") % {"question": 1, "choice": number}
    return place.removeprefix(gettext("question %(number)s") % {"number": 1})


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


def category_path(data: dict, language: str) -> str:
    """The Moodle category a quiz-file dict is written in: the one it came from, else one
    named after its title ("$course$/top/Networks"; a "/" in it is "//")."""
    if data.get("category"):
        return data["category"]
    title = text_in(data.get("title"), language) or data.get("slug", "")
    return "$course$/top/" + title.replace("/", "//")


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

    Backslash, backtick, asterisk, brackets and dollar (Moodle's "$x$" is text, ours
    a formula) are always escaped; an underscore
    unless it is inside a word, `<` and `&` where they would start a tag or an
    entity, and what starts a line as a heading, quote or list item would: `# `,
    `>`, `- `, `+ `, `1. `.
    """
    text = re.sub(r"([\\`*\[\]$])", r"\\\1", text)
    text = re.sub(r"(?<![^\W_])_|_(?![^\W_])", r"\\_", text)
    text = re.sub(r"<(?=[A-Za-z/!?])", r"\\<", text)
    text = re.sub(r"&(?=#?\w+;)", r"\\&", text)
    if at_line_start:
        return _LINE_START.sub(_line_start_escape, text)
    head, newline, rest = text.partition("\n")
    return head + newline + _LINE_START.sub(_line_start_escape, rest) if newline else head


# Moodle's TeX filter and MathJax: \( \), \[ \], $$ $$ and [tex] [/tex], none holding a "$".
_FORMULA_OPENING = re.compile(r"\\\(|\\\[|\$\$|\[tex\]")
_FORMULA_CLOSINGS = {"\\(": "\\)", "\\[": "\\]", "$$": "$$", "[tex]": "[/tex]"}
_FORMULA_INLINE = {"\\(", "[tex]"}
MAX_FORMULA = 500  # Characters: the renderer's limit (quizzes.markup.rendering).


def markdown_with_formulas(text: str, *, at_line_start: bool = True) -> str:
    """Plain text as Markdown, as `markdown_escape`, but its TeX as our formulas.

    `\\( x \\)` and `[tex]x[/tex]` become `$x$`, `\\[ x \\]` and `$$x$$` become
    `$$x$$`, their TeX kept as it is (unescaped), so that it renders as MathML or is
    named by the text's problems. In linear time: each closing is looked for once.
    """
    parts, start, position = [], 0, 0
    closings: dict[str, int] = {}  # Where the next closing of each kind is, -1 for none.
    while match := _FORMULA_OPENING.search(text, position):
        opening = match.group()
        closer = _FORMULA_CLOSINGS[opening]
        found = closings.get(opening)
        if found is None or (found != -1 and found < match.end()):
            found = closings[opening] = text.find(closer, match.end())
        # Measured before it is cut out: a slice to a far closing, for each opening, is
        # quadratic.
        too_far = found == -1 or found - match.end() > MAX_FORMULA
        tex = "" if too_far else text[match.end() : found]
        if not tex.strip() or "$" in tex:
            position = match.start() + 1
            continue
        parts.append(markdown_escape(text[start : match.start()], at_line_start=at_line_start))
        at_line_start = False
        tex = " ".join(tex.split())
        parts.append(f"${tex}$" if opening in _FORMULA_INLINE else f"$${tex}$$")
        start = position = found + len(closer)
    parts.append(markdown_escape(text[start:], at_line_start=at_line_start))
    return "".join(parts)


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
    if text_format == FORMAT_MARKDOWN:
        if image_src is not None:
            text = _PLUGINFILE.sub(lambda match: image_src(match.group()), text)
        return Converted(text.strip())
    if image_src is None:
        return Converted(markdown_with_formulas(text.strip()))
    # A plain text names a file by its address: a link to it, its name the link's text.
    parts = _PLUGINFILE.split(text.strip())
    for number in range(1, len(parts), 2):
        name = markdown_escape(pluginfile_name(parts[number]), at_line_start=False)
        parts[number] = f"[{name}]({image_src(parts[number])})"
    for number in range(0, len(parts), 2):
        parts[number] = markdown_with_formulas(parts[number], at_line_start=number == 0)
    return Converted("".join(parts))


_PLUGINFILE = re.compile(r"(@@PLUGINFILE@@/[^\s)\"'<>]+)")


def to_markdown_texts(
    text: str,
    text_format: str,
    *,
    language: str,
    image_src: Callable[[str], str] | None = None,
) -> tuple[dict[str, str], tuple[str, ...]]:
    """A Moodle text as {language: Markdown}, its multilang parts filling each language
    (`multilang_texts`); and the HTML tags dropped from it. Empty texts are left out."""
    texts, dropped = {}, set()
    for code, raw in multilang_texts(text, language).items():
        converted = to_markdown(raw, text_format, image_src=image_src)
        dropped.update(converted.dropped)
        if converted.text:
            texts[code] = converted.text
    return texts, tuple(sorted(dropped))


# Moodle's multilang filters: consecutive <span lang="fr" class="multilang">…</span>, and
# {mlang fr}…{mlang} ({mlang en,fr}, {mlang other}) of the multilang2 filter.
_MULTILANG_TOKEN = re.compile(r"<span\b[^<>]*>|</span\s*>|\{mlang(?:\s+([^{}]*))?\}", re.I)
_LANG_ATTRIBUTE = re.compile(r"""\blang\s*=\s*["']?([A-Za-z0-9_-]+)""", re.I)
_MULTILANG_CLASS = re.compile(r"""\bclass\s*=\s*["'][^"']*\bmultilang\b""", re.I)


def multilang_texts(text: str, language: str) -> dict[str, str]:
    """The text in each of the site's languages its multilang parts name, else {language: text}.

    A language's text is what lies outside the multilang parts, with, of each group of
    consecutive parts, the one in that language, else the one for "other", else the
    first, as Moodle shows a language it lacks. Languages are matched by their first
    part ("fr_ca" is "fr"); the site's other languages get no text of their own.
    """
    if "multilang" not in text and "{mlang" not in text:
        return {language: text}
    pieces = _multilang_pieces(text)
    site = {code for code, _name in settings.LANGUAGES}
    named = {
        code
        for piece in pieces
        if isinstance(piece, list)
        for codes, _content in piece
        for code in codes
        if code in site
    }
    if not named:
        return {language: _multilang_in(pieces, language)}
    return {code: _multilang_in(pieces, code) for code in sorted(named)}


def _multilang_code(code: str) -> str:
    return re.split(r"[_-]", code.strip().lower(), maxsplit=1)[0]


def _multilang_pieces(text: str) -> list:
    """The text as plain strings and groups of consecutive parts [(codes, content)], in one pass."""
    tokens = list(_MULTILANG_TOKEN.finditer(text))
    closings = _multilang_closings(tokens)
    pieces: list = []
    start = index = 0
    while index < len(tokens):
        token, closing = tokens[index], closings.get(index)
        codes = _multilang_codes(token)
        if closing is None or not codes:
            index += 1
            continue
        content = text[token.end() : tokens[closing].start()]
        between = text[start : token.start()]
        if pieces and isinstance(pieces[-1], list) and not between.strip():
            pieces[-1].append((codes, content))
        else:
            pieces.extend((between, [(codes, content)]))
        start, index = tokens[closing].end(), closing + 1
    pieces.append(text[start:])
    return pieces


def _multilang_closings(tokens: list[re.Match]) -> dict[int, int]:
    """The index of the token closing each token that opens: a span's own </span>, an
    {mlang xx}'s next {mlang}."""
    closings, spans = {}, []
    for index, token in enumerate(tokens):
        name = token.group().lower()
        if name.startswith("<span"):
            spans.append(index)
        elif name.startswith("</span") and spans:
            closings[spans.pop()] = index
    following = None
    for index in range(len(tokens) - 1, -1, -1):
        name = tokens[index].group().lower()
        if name == "{mlang}":
            following = index
        elif name.startswith("{mlang") and following is not None:
            closings[index] = following
    return closings


def _multilang_codes(token: re.Match) -> set[str]:
    """The languages a multilang part is for, from the token opening it; none for any
    other span."""
    opening = token.group()
    if opening.startswith("{"):
        return {_multilang_code(code) for code in (token.group(1) or "").split(",") if code.strip()}
    lang = _LANG_ATTRIBUTE.search(opening)
    if lang and _MULTILANG_CLASS.search(opening):
        return {_multilang_code(lang.group(1))}
    return set()


def _multilang_in(pieces: list, code: str) -> str:
    chosen = []
    for piece in pieces:
        if isinstance(piece, str):
            chosen.append(piece)
            continue
        contents = [content for codes, content in piece if code in codes]
        contents = contents or [content for codes, content in piece if "other" in codes]
        chosen.append((contents or [piece[0][1]])[0])
    return "".join(chosen)


def pluginfile_name(reference: str) -> str:
    """The file name in a Moodle reference: "@@PLUGINFILE@@/my%20pic.png" is "my pic.png"."""
    return unquote(reference.removeprefix("@@PLUGINFILE@@/"))


def image_reference(name: str) -> str:
    """How our Markdown refers to an imported file: "images/my%20pic.png"."""
    return ARCHIVE_IMAGES + quote(name)


def html_to_markdown(text: str, *, image_src: Callable[[str], str] | None = None) -> Converted:
    """Moodle's HTML as Markdown: the common tags become Markdown, the others only their text.

    What is converted: p, div, br, b, strong, i, em, code, pre, a, ul, ol, li, img, table
    (a Markdown table, its first row the header), sub and sup (Unicode where every
    character has a form, "H₂O", else a formula, "T${}_{\text{max}}$"), and TeX
    (`markdown_with_formulas`). Comments, and script and style elements with what they
    hold, are dropped; every other tag is dropped keeping its text, and named in
    `dropped` so the caller can say so.
    """
    converter = _HTMLToMarkdown(image_src=image_src)
    # Python's HTML parser takes quadratic time over many unclosed tags ("<a <a <a"):
    # a "<" that starts no whole tag or comment is given to it as text.
    text = _without_comments(text.replace(_BREAK, "\ufffd"))
    converter.feed(_STRAY_LT.sub("&lt;", text))
    converter.close()
    return Converted(converter.markdown(), tuple(sorted(converter.dropped)))


def _without_comments(text: str) -> str:
    """The HTML without its comments, what they hold too ("<!-- <p>x</p> -->"), in one pass;
    an unclosed "<!--" is left as text."""
    parts, start = [], 0
    while (opening := text.find("<!--", start)) != -1:
        closing = text.find("-->", opening + 4)
        if closing == -1:
            break
        parts.append(text[start:opening])
        start = closing + 3
    parts.append(text[start:])
    return "".join(parts)


_STRAY_LT = re.compile(r"<(?!/?[A-Za-z][^<>]*>|!--(?:[^<-]|-(?!->))*-->)")
_BREAK = "\ufdd0"  # A noncharacter: it stands for a line break until the text is done.
_SUPERSCRIPTS = str.maketrans("0123456789+-−=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ")
_SUBSCRIPTS = str.maketrans("0123456789+-−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎")
# What a formula's \text{} shows as it is; other characters keep sub/sup as plain text.
_TEX_TEXT = re.compile(r"[A-Za-z0-9 .,:;+=()'/-]+")


class _HTMLToMarkdown(HTMLParser):
    _INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*"}
    _BLOCK = {"p", "div"}
    _SKIP = {"script", "style"}
    _IGNORED = {"html", "body", "thead", "tbody", "tfoot"}  # Wrappers whose loss loses nothing.
    _SCRIPTS = {"sub": ("_", _SUBSCRIPTS), "sup": ("^", _SUPERSCRIPTS)}

    def __init__(self, *, image_src: Callable[[str], str] | None):
        super().__init__(convert_charrefs=True)
        self.image_src = image_src
        self.parts: list[str] = []
        self.dropped: set[str] = set()
        self.lists: list[list] = []  # [tag, next number] of each open list.
        self.links: list[str | None] = []
        self.inline: list[tuple[str, int]] = []  # (tag, index in parts) of each open b, i, sub...
        self.tables: list[dict] = []  # The open table, or none: tables in it are flattened.
        self.nested_tables = 0
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

    def _taken_since(self, index: int) -> str:
        """What was written since parts[index], taken out of the parts."""
        text = "".join(self.parts[index:])
        del self.parts[index:]
        return text

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
        elif tag in self._INLINE or tag in self._SCRIPTS:
            self.inline.append((tag, len(self.parts)))
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
        elif tag in ("table", "tr", "td", "th"):
            self._table_start(tag)
        elif tag not in self._IGNORED:
            self.dropped.add(tag)
            self._media(attributes)

    def _media(self, attributes: dict) -> None:
        """A file that a dropped tag plays (audio, video, source, embed, object): a link
        without text to it, for the importer to name as left out."""
        src = attributes.get("src") or attributes.get("data") or ""
        if self.image_src is not None and src.startswith("@@PLUGINFILE@@/"):
            self._append(f"[]({self.image_src(src)})")

    def _inline_end(self, tag: str) -> None:
        """Close the last open `tag`: emphasis keeps the spaces at its edges outside
        its markers ("** incorrect.**" would show its stars), and empty emphasis goes."""
        for position in range(len(self.inline) - 1, -1, -1):
            if self.inline[position][0] == tag:
                break
        else:
            return
        index = self.inline[position][1]
        del self.inline[position:]
        content = self._taken_since(index)
        inner = content.strip()
        if not inner:
            self.parts.append(content)
            return
        lead = content[: len(content) - len(content.lstrip())]
        trail = content[len(content.rstrip()) :]
        if tag in self._SCRIPTS:
            inner = self._script(tag, inner, self._digits_before() if not lead else "")
        else:
            inner = self._INLINE[tag] + inner + self._INLINE[tag]
        self.parts.extend((lead, inner, trail))

    def _digits_before(self) -> str:
        """The digits just written, taken out: a formula after a digit ("1$x$") would
        not be one, so they become its base."""
        match = re.search(r"\d+$", self.parts[-1]) if self.parts else None
        if match is None:
            return ""
        self.parts[-1] = self.parts[-1][: match.start()]
        return match.group()

    def _script(self, tag: str, content: str, digits: str) -> str:
        """A subscript or superscript as Unicode, or as a formula of text, or its text;
        `digits` are the ones just before it."""
        mark, characters = self._SCRIPTS[tag]
        if all(char == " " or ord(char) in characters for char in content):
            return digits + content.translate(characters)
        if _TEX_TEXT.fullmatch(content):
            return "$" + (digits or "{}") + mark + "{\\text{" + content + "}}$"
        self.dropped.add(tag)
        return digits + content

    def _table_start(self, tag: str) -> None:
        if self.nested_tables or (tag == "table" and self.tables):
            # A table in a table is its cells' text, in the cell: Markdown has no such table.
            self.nested_tables += tag == "table"
            self.dropped.add("table")
            self._append(" ")
            return
        if tag == "table":
            self._block()
            self.tables.append({"rows": [], "cell": None})
            return
        if not self.tables:
            self.dropped.add(tag)
            return
        table = self.tables[-1]
        self._cell_end(table)
        if tag == "tr" or not table["rows"]:
            table["rows"].append([])
        if tag in ("td", "th"):
            table["cell"] = len(self.parts)

    def _cell_end(self, table: dict) -> None:
        if table["cell"] is None:
            return
        text = self._taken_since(table["cell"]).replace(_BREAK, " ")
        table["rows"][-1].append(" ".join(text.split()).replace("|", "\\|"))
        table["cell"] = None

    def _table_end(self) -> None:
        table = self.tables.pop()
        self._cell_end(table)
        rows = [row for row in table["rows"] if row]
        if not rows:
            return
        width = max(len(row) for row in rows)
        lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
        lines.insert(1, "|" + " --- |" * width)
        self._block()
        self._append("\n".join(lines))
        self._block()

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
        elif tag in self._INLINE or tag in self._SCRIPTS:
            self._inline_end(tag)
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
        elif tag == "table" and self.nested_tables:
            self.nested_tables -= 1
        elif tag in ("td", "th") and self.tables and not self.nested_tables:
            self._cell_end(self.tables[-1])
        elif tag == "table" and self.tables:
            self._table_end()

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
            self._append(markdown_with_formulas(data, at_line_start=self._at_line_start()))

    def markdown(self) -> str:
        self.inline.clear()  # Unclosed emphasis or scripts: their text stays as it is.
        while self.tables:
            self._table_end()
        lines = [line.rstrip() for line in "".join(self.parts).split("\n")]
        # A line break is only kept between two lines of one paragraph: two in a row
        # (<br><br>) part paragraphs, and Moodle's editor ends paragraphs with a <br>.
        lines = ["" if line == _BREAK else line for line in lines]
        for number in range(len(lines) - 1, -1, -1):
            last = number + 1 == len(lines) or not lines[number + 1]
            if lines[number].endswith(_BREAK) and last:
                lines[number] = lines[number].removesuffix(_BREAK).rstrip()
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        return text.replace(_BREAK, "\\")


@dataclass
class QuizCollector:
    """Sorts the questions read into quizzes: one per Moodle category, or all into one.

    A category's quiz is made when its first question is added, so a category
    without questions that could be imported makes no quiz; it keeps the category's path,
    by which a later import of the same category finds it.
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
            if self._category and not self.quiz_slug:
                quiz["category"] = self._category
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
