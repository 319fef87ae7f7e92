"""Markdown, code and maths in the texts learners read, turned into safe HTML on the server.

Rendering happens once per content change (the content cache keeps the result), so it can afford
a real Markdown parser, Pygments and a TeX-to-MathML converter; what it can't afford is to raise
or to be slow on hostile input, so every stage has a limit and a plain-text way out:

- Markdown is CommonMark plus tables and strikethrough (markdown-it-py), with raw HTML off: an
  editor's `<script>` shows as text. The HTML is then cleaned by nh3 with an allow-list, so even
  a bug upstream can't let an event handler, a style or a `javascript:` URL through.
- Fenced code with a language Pygments knows is highlighted with token classes (no inline
  styles: the CSP has no 'unsafe-inline'); the `<pre>` is focusable so a keyboard can scroll it.
- `$…$` and `$$…$$` become MathML (latex2mathml), readable with JavaScript off and by screen
  readers. TeX that can't be converted shows as code; `problems()` tells the editor why, before
  saving or importing.
- French texts get French typography (`french_typography`), on text nodes only.

Headings: `#` renders as `<h3>`, `##` as `<h4>` and so on down to `<h6>`. A text sits under the
page's `<h1>` and the `<h2>` of its section (the feedback, the review), so its own headings stay
below them and never split the page's outline.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape, unescape
from html.parser import HTMLParser
from itertools import count
from urllib.parse import unquote, urlsplit

import latex2mathml.converter
import nh3
from django.conf import settings
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import gettext
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

# markdown-it is quadratic on unclosed brackets (3,000 `[` take about 40 ms, 5,000 about 110 ms),
# Pygments and latex2mathml take 15 to 25 µs a character: these limits keep a text's rendering
# well under 100 ms. The longest demo text is about 600 characters; a choice holds 500.
MAX_SOURCE_LENGTH = 3_000
MAX_FORMULA_LENGTH = 500
MAX_FORMULAS_LENGTH = 1_000  # all the formulas of one text together
# Code past this much in one text shows unhighlighted (still correct, just plain).
MAX_HIGHLIGHTED_LENGTH = 1_500
# The languages whose code is highlighted, by their Pygments lexer's first alias ("py" and
# "python3" are "python"): each takes under 50 ms on 1,500 characters written to slow it down
# (bench/render_budget.py). Others can backtrack for far longer (Java's 90 ms, Make's 90 ms,
# C#'s 360 ms, some past a second): their code shows unhighlighted.
HIGHLIGHTED_LEXERS = frozenset({
    "bash", "c", "console", "cpp", "css", "cuda", "diff", "docker", "fortran", "go", "haskell",
    "html", "ini", "javascript", "json", "julia", "kotlin", "lua", "matlab", "nginx", "numpy",
    "php", "powershell", "pycon", "python", "ruby", "rust", "scala", "splus", "sql", "tex",
    "toml", "typescript", "xml", "yaml",
})  # fmt: skip
# A quiz's pages show all its texts in one language (its page lists every prompt, the results
# review every question): together they may hold this many characters of Markdown (a hundred
# long questions), which render once per content change, process and language in under 0.5 s
# as guides write them and about 3 s written to be slow (bench/render_budget.py).
MAX_QUIZ_SOURCE_LENGTH = 150_000
# How much of a formula a message quotes so the editor can find it.
FORMULA_START_LENGTH = 30

CODE_BLOCK_CLASS = "code-block"
MATH_BLOCK_CLASS = "math-block"
TABLE_SCROLL_CLASS = "table-scroll"
TABLE_CLASS = "content-table"
ALIGN_CLASSES = {"left": "align-left", "center": "align-center", "right": "align-right"}
HEADING_SHIFT = 2

# TeX that defines macros can expand without bound (each level may repeat the one below).
_MACRO_DEFINITION = re.compile(
    r"\\(?:def|edef|gdef|xdef|let|newcommand|renewcommand|providecommand|DeclareMathOperator"
    r"|newenvironment|renewenvironment)(?![A-Za-z])"
)
# latex2mathml passes a command it doesn't know through as text: `<mi>\foo</mi>`.
_UNKNOWN_COMMAND = re.compile(r">(\\[A-Za-z]+)<")
# ...and the text of `\text{}`, `\mbox{}`, `\fbox{}` and the like as it is, markup included:
# `\text{<img src=…>}` gave `<mtext><img src=…></mtext>`. It is escaped, and a tag that is
# not MathML's left in a formula refuses it.
_MTEXT = re.compile(r"(<mtext\b[^>]*>)(.*?)(</mtext>)", re.S)
_TAG = re.compile(r"</?\s*([A-Za-z][\w:-]*)")
_MATHML_XMLNS = ' xmlns="http://www.w3.org/1998/Math/MathML"'

_PYGMENTS_CLASSES = {name for name in STANDARD_TYPES.values() if name}
_FORMATTER = HtmlFormatter(nowrap=True)

_MATHML_TAGS = {
    "math", "menclose", "mfrac", "mi", "mn", "mo", "mover", "mpadded", "mphantom", "mroot",
    "mrow", "ms", "mspace", "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable", "mtd",
    "mtext", "mtr", "munder", "munderover",
}  # fmt: skip
# What latex2mathml writes, less `href` (a link inside a formula) and colours (they would ignore
# the dark scheme).
_MATHML_ATTRIBUTES = {
    "accent", "accentunder", "columnalign", "columnlines", "columnspacing", "columnspan", "depth",
    "displaystyle", "fence", "form", "height", "largeop", "linethickness", "lspace", "mathsize",
    "mathvariant", "maxsize", "minsize", "movablelimits", "notation", "rowlines", "rowspacing",
    "rowspan", "rspace", "scriptlevel", "separator", "stretchy", "symmetric", "voffset", "width",
}  # fmt: skip
_TAGS = {
    "a", "blockquote", "br", "code", "del", "div", "em", "h3", "h4", "h5", "h6", "hr", "img",
    "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td", "th", "thead", "tr",
    "ul",
} | _MATHML_TAGS  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "ol": {"start"},
} | {tag: _MATHML_ATTRIBUTES for tag in _MATHML_TAGS - {"math"}}
_ATTRIBUTE_VALUES = {
    "pre": {"tabindex": {"0"}},
    "div": {"tabindex": {"0"}},
    "math": {"display": {"block", "inline"}},
}
_CLASSES = {
    "pre": {CODE_BLOCK_CLASS},
    "div": {MATH_BLOCK_CLASS, TABLE_SCROLL_CLASS},
    "span": _PYGMENTS_CLASSES,
    "table": {TABLE_CLASS},
    "th": set(ALIGN_CLASSES.values()),
    "td": set(ALIGN_CLASSES.values()),
}
_URL_SCHEMES = {"http", "https", "mailto"}


@dataclass(frozen=True, slots=True)
class Rendered:
    """A text's sanitised HTML with the language it is written in.

    The language travels with the HTML so that a cached text keeps its `lang` (a French page may
    show an English fallback) and got French typography only if it is French. Templates print
    it as is: `__html__` tells Django it is already safe.
    """

    html: str
    language: str

    def __html__(self) -> str:
        return self.html

    def __str__(self) -> str:
        # Django's templates turn a value into a string before escaping it.
        return mark_safe(self.html)

    def __bool__(self) -> bool:
        return bool(self.html)


class _TexError(Exception):
    """A formula that can't be shown as MathML; the message is for the editor."""


def _media_url() -> str:
    """The site's own media path ("/media/"), the only place a relative URL may point to."""
    url = getattr(settings, "MEDIA_URL", "") or ""
    # Django turns an unset MEDIA_URL into "/", which would let through every path of the site.
    return url if url.startswith("/") and not url.startswith("//") and url.strip("/") else ""


def _in_media(url: str) -> bool:
    """A URL of the site's media: under its path, and still there once a browser has read
    its `..` and `.` segments (percent-encoded too) and its backslashes as slashes."""
    media = _media_url()
    if not media or not url.startswith(media):
        return False
    segments = unquote(urlsplit(url).path).replace("\\", "/").split("/")
    return not {".", ".."} & set(segments)


def _is_allowed_url(url: str) -> bool:
    if _in_media(url):
        return True
    scheme, colon, _ = url.partition(":")
    return bool(colon) and scheme.lower() in _URL_SCHEMES


def _keep_relative_url(url: str) -> str | None:
    return url if _in_media(url) else None


_CLEANER = nh3.Cleaner(
    tags=_TAGS,
    clean_content_tags={"script", "style"},
    attributes=_ATTRIBUTES,
    tag_attribute_values=_ATTRIBUTE_VALUES,
    allowed_classes=_CLASSES,
    url_schemes=_URL_SCHEMES,
    url_relative=_keep_relative_url,
    link_rel="noopener noreferrer",
)


@lru_cache(maxsize=128)
def _lexer(language: str):
    """The Pygments lexer for a fence's language if it is one of `HIGHLIGHTED_LEXERS`, or
    None; whitespace kept as written."""
    try:
        lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None
    return lexer if lexer.aliases[0] in HIGHLIGHTED_LEXERS else None


def _code_block(code: str, language: str, *, env: dict) -> str:
    lexer = _lexer(language.lower()) if language else None
    if lexer is not None:
        env["highlighted_length"] = env.get("highlighted_length", 0) + len(code)
        if env["highlighted_length"] > MAX_HIGHLIGHTED_LENGTH:
            lexer = None
    body = highlight(code, lexer, _FORMATTER) if lexer is not None else escape(code, quote=False)
    return f'<pre class="{CODE_BLOCK_CLASS}" tabindex="0"><code>{body}</code></pre>\n'


def _formula_start(tex: str) -> str:
    tex = " ".join(tex.split())
    if len(tex) <= FORMULA_START_LENGTH:
        return tex
    return tex[:FORMULA_START_LENGTH] + "…"


def _braces_balanced(tex: str) -> bool:
    """latex2mathml quietly closes what is left open (`\\frac{a` gives half a fraction)."""
    depth = 0
    escaped = False
    for char in tex:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _tex_to_mathml(tex: str, *, display: bool, env: dict) -> str:
    """MathML for one formula, or `_TexError` saying what the editor must change."""
    start = _formula_start(tex)
    if len(tex) > MAX_FORMULA_LENGTH:
        raise _TexError(
            gettext(
                "The formula starting “%(start)s” is %(length)d characters long; "
                "the limit is %(limit)d."
            )
            % {"start": start, "length": len(tex), "limit": MAX_FORMULA_LENGTH}
        )
    env["tex_length"] = env.get("tex_length", 0) + len(tex)
    if env["tex_length"] > MAX_FORMULAS_LENGTH:
        raise _TexError(
            gettext(
                "The formulas of this text are more than %(limit)d characters long together; "
                "the formula starting “%(start)s” is past that limit."
            )
            % {"start": start, "limit": MAX_FORMULAS_LENGTH}
        )
    if not _braces_balanced(tex):
        raise _TexError(
            gettext("The formula starting “%(start)s” has a “{” or a “}” too many.")
            % {"start": start}
        )
    if _MACRO_DEFINITION.search(tex):
        raise _TexError(
            gettext(
                "The formula starting “%(start)s” defines a macro (\\def, \\newcommand…), "
                "which formulas may not do."
            )
            % {"start": start}
        )
    mathml = _latex2mathml(tex, display=display)
    if mathml is None:
        raise _TexError(
            gettext(
                "The formula starting “%(start)s” can't be turned into MathML: "
                "check its braces, environments and commands."
            )
            % {"start": start}
        )
    return _mathml_checked(mathml, start)


@lru_cache(maxsize=1024)
def _latex2mathml(tex: str, *, display: bool) -> str | None:
    """latex2mathml's MathML for a formula, or None when it can't convert it. Kept: a
    translation shows its original's formulas, which an import checks right after (each
    conversion is about a third of a millisecond)."""
    try:
        return latex2mathml.converter.convert(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many kinds of errors on broken TeX
        return None


def _mathml_checked(mathml: str, start: str) -> str:
    """latex2mathml's output, its texts escaped, or `_TexError` if it holds what MathML
    doesn't (markup, a command latex2mathml didn't know)."""
    mathml = _MTEXT.sub(
        lambda match: match[1] + escape(unescape(match[2]), quote=False) + match[3], mathml
    )
    if {tag.lower() for tag in _TAG.findall(mathml)} - _MATHML_TAGS:
        raise _TexError(
            gettext("The formula starting “%(start)s” holds HTML tags, which formulas may not.")
            % {"start": start}
        )
    unknown = _UNKNOWN_COMMAND.search(mathml)
    if unknown:
        raise _TexError(
            gettext("The formula starting “%(start)s” uses %(command)s, which is not known.")
            % {"start": start, "command": unknown.group(1)}
        )
    return mathml.replace(_MATHML_XMLNS, "", 1)


def _math(tex: str, *, display: bool, own_lines: bool, env: dict) -> str:
    """A formula; on its own lines it gets a box that scrolls, like a code block."""
    try:
        mathml = _tex_to_mathml(tex, display=display, env=env)
    except _TexError as error:
        env.setdefault("problems", []).append(str(error))
        if own_lines:
            return _code_block(tex.strip("\n") + "\n", "", env=env)
        return f"<code>{escape(tex, quote=False)}</code>"
    if own_lines:
        return f'<div class="{MATH_BLOCK_CLASS}" tabindex="0">{mathml}</div>\n'
    return mathml


def _render_fence(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    language = token.info.split(maxsplit=1)[0] if token.info.strip() else ""
    return _code_block(token.content, language, env=env)


def _render_code_block(self, tokens, idx, options, env) -> str:
    return _code_block(tokens[idx].content, "", env=env)


def _render_math_inline(self, tokens, idx, options, env) -> str:
    return _math(tokens[idx].content, display=False, own_lines=False, env=env)


def _render_math_inline_double(self, tokens, idx, options, env) -> str:
    """`$$…$$` within a line: displayed, but still inside its paragraph."""
    return _math(tokens[idx].content, display=True, own_lines=False, env=env)


def _render_math_block(self, tokens, idx, options, env) -> str:
    return _math(tokens[idx].content, display=True, own_lines=True, env=env)


def _render_image(self, tokens, idx, options, env) -> str:
    """An image only from the site's media; any other shows its alt text instead."""
    token = tokens[idx]
    if _in_media(str(token.attrGet("src") or "")):
        return self.image(tokens, idx, options, env)
    return escape(self.renderInlineAsText(token.children or [], options, env), quote=False)


def _render_table_open(self, tokens, idx, options, env) -> str:
    """A table scrolls sideways in its own focusable box rather than widening a phone's page."""
    return f'<div class="{TABLE_SCROLL_CLASS}" tabindex="0"><table class="{TABLE_CLASS}">\n'


def _render_table_close(self, tokens, idx, options, env) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def _shift_headings_and_align_cells(state) -> None:
    """`#` becomes `<h3>` (see the module's docstring); table alignment becomes a class.

    markdown-it writes alignment as a `style` attribute, which the CSP would block.
    """
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            level = min(int(token.tag[1]) + HEADING_SHIFT, 6)
            token.tag = f"h{level}"
        elif token.type in ("th_open", "td_open"):
            style = str(token.attrGet("style") or "")
            align = style.removeprefix("text-align:")
            token.attrs.pop("style", None)
            if align in ALIGN_CLASSES:
                token.attrSet("class", ALIGN_CLASSES[align])


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    # No space inside the dollars and no digit outside them: "$5 and $6" stays money.
    md.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=False,
        double_inline=True,
    )
    md.validateLink = _is_allowed_url
    md.core.ruler.push("quizsite_headings_cells", _shift_headings_and_align_cells)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_code_block)
    md.add_render_rule("math_inline", _render_math_inline)
    md.add_render_rule("math_inline_double", _render_math_inline_double)
    md.add_render_rule("math_block", _render_math_block)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    return md


_MD = _markdown()


def _to_html(source: str, *, inline: bool, env: dict) -> str:
    if len(source) > MAX_SOURCE_LENGTH:
        env.setdefault("problems", []).append(
            gettext("This text is %(length)d characters long; the limit is %(limit)d.")
            % {"length": len(source), "limit": MAX_SOURCE_LENGTH}
        )
        # Its beginning as plain text: the work stays bounded however long the source is.
        text = escape(source[:MAX_SOURCE_LENGTH], quote=False) + "…"
        return text if inline else f"<p>{text}</p>"
    return _MD.renderInline(source, env) if inline else _MD.render(source, env)


def is_french(language: str) -> bool:
    return language.split("-")[0].lower() == "fr"


def render(source: str, *, language: str, inline: bool = False) -> Rendered:
    """Safe HTML for a text written in `language`; never raises.

    `inline=True` renders phrasing content only (no paragraphs, lists, code blocks or tables:
    they show as their source), for a text that must fit in a `<label>`, a `<legend>` or a
    heading. French texts get `french_typography`.
    """
    html = _CLEANER.clean(_to_html(source, inline=inline, env={}))
    if is_french(language):
        html = french_typography(html)
    return Rendered(html=html, language=language)


# How much of a code line a title quotes when the text starts with code.
TITLE_CODE_LENGTH = 60


def title(source: str, *, language: str) -> Rendered:
    """A block text's first line of text (its first paragraph, heading, list item or table
    cell) as phrasing content, for where the text is named rather than shown: a link to it,
    a report's heading. A text that starts with code or a formula is named by its first line;
    a source past `MAX_SOURCE_LENGTH` by its beginning, as `render` shows it.
    """
    if len(source) > MAX_SOURCE_LENGTH:
        return render(source[:TITLE_CODE_LENGTH], language=language, inline=True)
    env: dict = {}
    html = ""
    for token in _MD.parse(source, env):
        if token.type == "inline":
            html = _MD.renderer.render(token.children or [], _MD.options, env)
            break
        if token.content.strip():
            line = token.content.strip().splitlines()[0][:TITLE_CODE_LENGTH]
            html = f"<code>{escape(line, quote=False)}</code>"
            break
    html = _CLEANER.clean(html)
    if is_french(language):
        html = french_typography(html)
    return Rendered(html=html, language=language)


# How long a plain title is, at most, before it ends with "…": a list column, a breadcrumb.
PLAIN_TITLE_LENGTH = 100
_PLAIN_INLINE = {"text", "code_inline", "math_inline", "math_inline_double"}


def _plain_inline(tokens) -> str:
    parts = []
    for token in tokens:
        if token.type in _PLAIN_INLINE:
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif token.children:  # An image: its alt text.
            parts.append(_plain_inline(token.children))
    return "".join(parts)


def plain_title(source: str, *, length: int = PLAIN_TITLE_LENGTH) -> str:
    """What `title` names a text by, as plain text with the Markdown stripped (no backticks,
    asterisks, fences or dollars; a formula keeps its TeX), for where HTML can't go: the
    admin's lists, headings, breadcrumbs and messages. Past `length` it ends with "…"."""
    text = ""
    for token in _MD.parse(source[:MAX_SOURCE_LENGTH], {}):
        if token.type == "inline":
            text = _plain_inline(token.children or [])
        elif token.content.strip():
            text = token.content.strip().splitlines()[0]
        if text.strip():
            break
    text = " ".join(text.split())
    if len(text) > length:
        return text[: length - 1].rstrip() + "…"
    return text


_DOCUMENT_MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def document(source: str) -> tuple[str, str]:
    """One of our own documents (docs/*.md) as (its title, its HTML) for the admin: CommonMark
    with tables, the first heading taken out as the title and each other heading given the id
    GitHub gives it (a second "Limits" is "limits-1"), so that links to its sections work;
    code and tables scroll in a box a keyboard can reach. Not for editors' texts: it has no
    limits, no maths and no highlighting."""
    tokens = _DOCUMENT_MD.parse(source)
    title = ""
    ids: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        text = tokens[index + 1].content
        if not title and token.tag == "h1":
            title = text
            token.hidden = tokens[index + 1].hidden = tokens[index + 2].hidden = True
            tokens[index + 1].children = []
            continue
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        given = next(name for n in count() if (name := f"{slug}-{n}" if n else slug) not in ids)
        ids.add(given)
        token.attrSet("id", given)
    html = _DOCUMENT_MD.renderer.render(tokens, _DOCUMENT_MD.options, {})
    return title, html.replace("<pre>", '<pre tabindex="0">').replace(
        "<table>", '<table tabindex="0">'
    )


def images(source: str, *, inline: bool = False) -> list[tuple[str, str]]:
    """(src, alt text) of every Markdown image in `source`, in reading order.

    For the editors' checks (an image needs alt text and must be one of the site's); a source
    past `MAX_SOURCE_LENGTH` has none, since it shows as plain text.
    """
    if len(source) > MAX_SOURCE_LENGTH or "![" not in source:  # Every image starts so.
        return []
    tokens = _MD.parseInline(source, {}) if inline else _MD.parse(source, {})
    found = []
    for token in tokens:
        for child in token.children or []:
            if child.type == "image":
                alt = _MD.renderer.renderInlineAsText(child.children or [], _MD.options, {})
                found.append((str(child.attrGet("src") or ""), alt.strip()))
    return found


def problems(source: str, *, inline: bool = False) -> list[str]:
    """What an editor must fix before this text can be saved or imported, in reading order.

    The messages don't name the field: the admin form or the importer adds it. They are the
    cases where `render` would show a formula as code, or the whole text as plain text; pass
    the same `inline` as the page will.
    """
    env: dict = {}
    if len(source) > MAX_SOURCE_LENGTH:
        _to_html(source, inline=inline, env=env)  # Its length, without rendering it.
        return env.get("problems", [])
    if "$" not in source:
        return []
    # Past its length only formulas can go wrong: the text is parsed, not rendered (no
    # highlighting, no cleaning), and each formula converted as `render` would, in order.
    tokens = _MD.parseInline(source, env) if inline else _MD.parse(source, env)
    for token in tokens:
        for part in [token, *(token.children or [])]:
            if part.type in _MATH_TOKENS:
                try:
                    _tex_to_mathml(part.content, display=part.type != "math_inline", env=env)
                except _TexError as error:
                    env.setdefault("problems", []).append(str(error))
    return env.get("problems", [])


_MATH_TOKENS = frozenset({"math_inline", "math_inline_double", "math_block"})


# French typography (Imprimerie nationale): a no-break space (U+00A0) before ":" and inside
# « », a narrow no-break space (U+202F) before ";", "!", "?", and before "%" as is usual for a
# percentage (it keeps "50 %" together without the width of a full space); the typographic
# apostrophe (’) for a straight one between two letters.
NBSP = "\u00a0"
NNBSP = "\u202f"
_SPACES = "[ \t\u00a0\u202f]+"
_SPACE_BEFORE_NARROW = re.compile(_SPACES + "(?=[;!?%])")
_SPACE_BEFORE_COLON = re.compile(_SPACES + "(?=:)")
# A mark straight after a word, when it ends a clause (so not "https://", "10:30", "a?b=1").
_CLAUSE_END = r"(?:[\s?!.,)\]»”\"]|$)"
_MISSING_BEFORE_NARROW = re.compile(r"(?<=[\w)\]”])(?=[;!?]" + _CLAUSE_END + ")")
_MISSING_BEFORE_COLON = re.compile(r"(?<=[\w)\]”])(?=:" + _CLAUSE_END + ")")
_MISSING_BEFORE_PERCENT = re.compile(r"(?<=\d)(?=%(?![\w(]))")
_AFTER_OPENING_GUILLEMET = re.compile("«(?:" + _SPACES + ")?")
# An elision's apostrophe, typed straight between two letters: "l'état" is "l’état".
_STRAIGHT_APOSTROPHE = re.compile(r"(?<=[^\W\d_])'(?=[^\W\d_])")
_BEFORE_CLOSING_GUILLEMET = re.compile("(?:" + _SPACES + ")?»")
# Text inside these is code, maths or not text at all.
_UNTOUCHED_ELEMENTS = {"code", "kbd", "math", "pre", "samp", "script", "style", "textarea"}


def _french_text(text: str, before: str) -> str:
    """French spaces in one text node; `before` is the last character of the text before it.

    `before` only lets a mark at the start of the node see the word it follows
    (`<em>vrai</em>?`); it is never changed itself.
    """
    text = _SPACE_BEFORE_NARROW.sub(NNBSP, text)
    text = _SPACE_BEFORE_COLON.sub(NBSP, text)
    text = _AFTER_OPENING_GUILLEMET.sub("«" + NBSP, text)
    text = _BEFORE_CLOSING_GUILLEMET.sub(NBSP + "»", text)
    joined = (before or " ") + text
    joined = _MISSING_BEFORE_NARROW.sub(NNBSP, joined)
    joined = _MISSING_BEFORE_COLON.sub(NBSP, joined)
    joined = _MISSING_BEFORE_PERCENT.sub(NNBSP, joined)
    joined = _STRAIGHT_APOSTROPHE.sub("’", joined)
    return joined[1:]


class _FrenchTypography(HTMLParser):
    """Rewrites text nodes only; tags, attributes, code and maths pass through unchanged."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.untouched = 0
        self.last_char = ""

    def handle_starttag(self, tag, attrs) -> None:
        self.out.append(self.get_starttag_text() or "")
        if tag in _UNTOUCHED_ELEMENTS:
            self.untouched += 1
            self.last_char = ""

    def handle_startendtag(self, tag, attrs) -> None:
        self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag) -> None:
        self.out.append(f"</{tag}>")
        if tag in _UNTOUCHED_ELEMENTS and self.untouched:
            self.untouched -= 1
            # Code or a formula is a word to the mark that follows it: "$x$ ?".
            self.last_char = "x"

    def handle_data(self, data) -> None:
        if not self.untouched:
            data = _french_text(data, self.last_char)
            self.last_char = data[-1:] or self.last_char
        self.out.append(escape(data, quote=False))

    def handle_comment(self, data) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl) -> None:
        self.out.append(f"<!{decl}>")


def french_typography(html: str) -> str:
    """`html` with French spaces before `: ; ! ? %` and inside « », outside code and maths.

    It expects well-formed HTML (nh3's output, or an escaped UI string); an ordinary space
    before a mark becomes the right no-break space, and a missing one is added where the mark
    ends a clause, so URLs, times (10:30) and code are left alone.
    """
    parser = _FrenchTypography()
    parser.feed(html)
    parser.close()
    result = "".join(parser.out)
    return mark_safe(result) if isinstance(html, SafeData) else result
