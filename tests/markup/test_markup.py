"""The rendering layer on its own: Markdown, code, maths, links, bad input, French typography."""

import re

import pytest
from django.template import Context, Template
from django.utils import translation
from django.utils.safestring import SafeData

from quizzes.markup import rendering
from quizzes.markup.rendering import (
    MAX_FORMULA_LENGTH,
    MAX_SOURCE_LENGTH,
    NBSP,
    NNBSP,
    Rendered,
    french_typography,
    problems,
    render,
)


def html(source: str, *, language: str = "en", inline: bool = False) -> str:
    return render(source, language=language, inline=inline).html


def assert_harmless(output: str) -> None:
    """No script, event handler, style or unsafe URL in a tag (shown as text, they are fine)."""
    lowered = output.lower()
    assert "<script" not in lowered and "<svg" not in lowered and "<iframe" not in lowered
    for tag in re.findall(r"<[a-z][^>]*>", lowered):
        assert not re.search(r"\son\w+=", tag), tag
        assert "style=" not in tag, tag
        assert "javascript:" not in tag and "data:" not in tag and "vbscript:" not in tag, tag


# Markdown


def test_paragraphs_emphasis_and_strikethrough():
    output = html("Some *emphasis*, **strong** and ~~old~~ text.")
    assert output.strip() == (
        "<p>Some <em>emphasis</em>, <strong>strong</strong> and <s>old</s> text.</p>"
    )


def test_tables_with_alignment_as_classes_not_styles():
    output = html("| a | b |\n|:-|-:|\n| 1 | 2 |")
    assert output.startswith('<div class="table-scroll" tabindex="0"><table class="content-table">')
    assert output.endswith("</table>\n</div>\n")
    assert "<th" in output and "<td" in output
    assert 'class="align-left"' in output and 'class="align-right"' in output
    assert "style" not in output


def test_lists_and_blockquotes():
    output = html("- one\n- two\n\n1. first\n\n> quoted")
    assert "<ul>" in output and "<ol>" in output and "<blockquote>" in output


def test_headings_start_below_the_page_sections():
    output = html("# Title\n\n## Part\n\n#### Deep")
    assert "<h3>Title</h3>" in output and "<h4>Part</h4>" in output and "<h6>Deep</h6>" in output
    assert "<h1" not in output and "<h2" not in output


def test_raw_html_shows_as_text():
    output = html("A <b>bold</b> claim and <em>this</em>")
    assert "&lt;b&gt;bold&lt;/b&gt;" in output
    assert "<b>" not in output


def test_inline_mode_has_no_blocks():
    output = html("Choose `x = 1` or $y$\n\n- not a list", inline=True)
    assert "<p>" not in output and "<ul>" not in output
    assert "<code>x = 1</code>" in output and "<math" in output


# Code


def test_inline_code_is_escaped_code():
    assert html("Call `optimizer.zero_grad()` then `a < b`").strip() == (
        "<p>Call <code>optimizer.zero_grad()</code> then <code>a &lt; b</code></p>"
    )


def test_fenced_code_with_a_language_is_highlighted_and_keeps_indentation():
    source = "```python\nfor i in range(3):\n    if (i + 1) % k == 0:\n        step()\n```"
    output = html(source)
    assert output.startswith('<pre class="code-block" tabindex="0"><code>')
    assert '<span class="k">for</span>' in output
    text = re.sub(r"<[^>]+>", "", output)
    assert "\n    if (i + 1) % k == 0:\n        step()\n" in text
    assert "style" not in output


def test_fenced_code_without_or_with_an_unknown_language_is_plain():
    for fence in ("```", "```no-such-language"):
        output = html(f"{fence}\n  a < b\n```")
        assert output.strip() == (
            '<pre class="code-block" tabindex="0"><code>  a &lt; b\n</code></pre>'
        )


def test_maths_in_code_stays_code():
    output = html("`$x$` and\n\n```\n$$y$$\n```")
    assert "<math" not in output
    assert "<code>$x$</code>" in output and "$$y$$" in output


# Maths


def test_inline_maths_becomes_mathml():
    output = html("The effective batch is $B \\times W$.")
    assert '<math display="inline"><mrow><mi>B</mi><mo>×</mo><mi>W</mi></mrow></math>' in output


def test_display_maths_becomes_a_scrolling_block():
    output = html("$$\n\\frac{B}{W}\n$$")
    assert output.startswith('<div class="math-block" tabindex="0"><math display="block">')
    assert "<mfrac>" in output


def test_display_maths_within_a_line_stays_in_its_paragraph():
    for inline in (False, True):
        output = html("so $$B \\times W$$ in all", inline=inline)
        assert '<math display="block"><mrow><mi>B</mi>' in output
        assert "$" not in output and "<div" not in output


def test_money_stays_money():
    assert "<math" not in html("It costs $5 and $6, or $ 7 $.")
    assert html("Escaped \\$x\\$ too.").strip() == "<p>Escaped $x$ too.</p>"


def test_unconvertible_tex_shows_as_code_and_is_a_problem():
    source = "Half $\\frac{a$ and $\\nosuchcommand x$, then\n\n$$\n\\begin{matrix}\n$$"
    output = html(source)
    assert "<math" not in output
    assert "<code>\\frac{a</code>" in output and "<code>\\nosuchcommand x</code>" in output
    messages = problems(source)
    assert messages == [
        "The formula starting “\\frac{a” has a “{” or a “}” too many.",
        "The formula starting “\\nosuchcommand x” uses \\nosuchcommand, which is not known.",
        "The formula starting “\\begin{matrix}” can't be turned into MathML: "
        "check its braces, environments and commands.",
    ]


def test_good_text_has_no_problems():
    assert problems("**Yes**: $B \\times W$ and\n\n```python\nx = 1\n```") == []


# Links


def test_links_get_rel_and_only_safe_schemes():
    output = html("[site](https://example.org) [mail](mailto:a@example.org) <http://x.example>")
    assert output.count('rel="noopener noreferrer"') == 3
    assert 'href="https://example.org"' in output and 'href="mailto:a@example.org"' in output


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "<javascript:alert(1)>",
        "[x](vbscript:msgbox)",
        "[x](/admin/)",
        "[x](//evil.example/)",
        "![x](data:image/png;base64,AAAA)",
        "![x](https://tracker.example/pixel.png)",
    ],
)
def test_other_links_and_images_are_not_links(source):
    output = html(source)
    assert "<a " not in output and "<img" not in output
    assert_harmless(output)


# Bad input (the list)


@pytest.mark.parametrize(
    "source",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "[x](javascript:alert(1))",
        "[x](data:text/html,<script>alert(1)</script>)",
        "<svg onload=alert(1)>",
        "`<script>`",
        "$<script>alert(1)</script>$",
        "$\\href{javascript:alert(1)}{x}$",
        "$\\style{color:red}{x}$",
    ],
)
def test_scripts_handlers_and_bad_urls_are_harmless(source):
    for inline in (False, True):
        assert_harmless(html(source, inline=inline))
        assert_harmless(html(source, language="fr", inline=inline))


def test_unclosed_code_fence_runs_to_the_end():
    output = html("Before\n\n```python\nx = 1\n<script>")
    assert '<pre class="code-block"' in output and "script" in output
    assert_harmless(output)


def test_ten_thousand_nested_list_items():
    flat = "- " * 10_000 + "x"
    indented = "\n".join("  " * depth + "- x" for depth in range(10_000))
    for source in (flat, indented):
        output = html(source)
        assert_harmless(output)
        assert len(output) < 2 * MAX_SOURCE_LENGTH
        assert problems(source) == [
            f"This text is {len(source)} characters long; the limit is {MAX_SOURCE_LENGTH}."
        ]
    deep = "- " * (MAX_SOURCE_LENGTH // 2)  # within the limit: markdown-it stops nesting
    assert html(deep).count("<ul>") < 100
    assert problems(deep) == []


def test_a_one_megabyte_formula():
    source = "$" + "x^2+" * 250_000 + "y$"
    output = html(source)
    assert "<math" not in output and len(output) < 2 * MAX_SOURCE_LENGTH
    assert problems(source)[0].startswith("This text is 1000003 characters long")


def test_a_formula_over_its_limit_is_code_and_a_problem():
    tex = "x+" * MAX_FORMULA_LENGTH + "y"
    output = html(f"${tex}$")
    assert "<math" not in output and "<code>x+x+" in output
    assert problems(f"${tex}$") == [
        f"The formula starting “{tex[:30]}…” is {len(tex)} characters long; "
        f"the limit is {MAX_FORMULA_LENGTH}."
    ]


def test_too_many_formulas_together():
    formula = "$" + "x+" * 200 + "y$"
    source = " ".join([formula] * 4)
    output = html(source)
    assert output.count("<math") == 2 and output.count("<code>") == 2
    assert len(problems(source)) == 2


@pytest.mark.parametrize(
    "tex",
    [
        "\\def\\a{\\a}\\a",
        "\\newcommand{\\a}{\\a\\a}\\a",
        "\\def\\a{xx}\\def\\b{\\a\\a\\a\\a}\\def\\c{\\b\\b\\b\\b}\\def\\d{\\c\\c\\c\\c}\\d",
        "\\renewcommand\\x{\\x}\\x",
        "\\let\\a\\b",
    ],
)
def test_macros_that_loop_are_refused(tex):
    output = html(f"${tex}$")
    assert "<math" not in output and "<code>" in output
    (message,) = problems(f"${tex}$")
    assert "defines a macro" in message


def test_render_never_raises_on_odd_input():
    for source in ["", "\x00", "$", "$$", "$$$$", "```", "\ud800" * 0 + "é" * 10, "[" * 2000]:
        assert isinstance(render(source, language="fr"), Rendered)


# The rendered value


def test_rendered_carries_its_language_and_prints_as_safe_html():
    rendered = render("**x**", language="fr")
    assert rendered.language == "fr"
    assert str(rendered) == rendered.html
    assert Template("{{ r }}").render(Context({"r": rendered})).strip() == (
        "<p><strong>x</strong></p>"
    )
    assert not render("", language="en")


# French typography


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Vraiment ? Oui !", f"Vraiment{NNBSP}? Oui{NNBSP}!"),
        ("Vraiment? Oui!", f"Vraiment{NNBSP}? Oui{NNBSP}!"),
        ("a ; b;c", f"a{NNBSP}; b;c"),
        ("Note : voir", f"Note{NBSP}: voir"),
        ("Note: voir", f"Note{NBSP}: voir"),
        ("Quoi?!", f"Quoi{NNBSP}?!"),
        ("50 % ou 50%", f"50{NNBSP}% ou 50{NNBSP}%"),
        ("« cité »", f"«{NBSP}cité{NBSP}»"),
        ("«cité»", f"«{NBSP}cité{NBSP}»"),
        ("à 10:30, ratio 1:2", "à 10:30, ratio 1:2"),
        ("voir https://example.org/a?b=1 ou mailto:x@y.fr", None),
        ("std::vector et a%20b", None),
        (f"Déjà{NNBSP}? Déjà{NBSP}:", None),
    ],
)
def test_french_spaces(text, expected):
    assert french_typography(text) == (text if expected is None else expected)


def test_french_typography_leaves_code_maths_and_attributes_alone():
    source = (
        "Voir [la doc](https://example.org/?q=a:b) : `a: b?` et $x!$?\n\n"
        "```python\nd = {'a': 1}; print(d)!\n```"
    )
    output = html(source, language="fr")
    assert 'href="https://example.org/?q=a:b"' in output
    assert f"</a>{NBSP}:" in output
    assert "<code>a: b?</code>" in output
    assert f"</math>{NNBSP}?" in output
    assert "<mo>!</mo>" in output
    assert NBSP not in output.split("<pre")[1] and NNBSP not in output.split("<pre")[1]


def test_french_typography_keeps_entities_escaped():
    output = french_typography("<p>a &amp; b; &lt;c&gt; d?</p>")
    assert output == f"<p>a &amp; b{NNBSP}; &lt;c&gt; d{NNBSP}?</p>"


def test_french_typography_across_inline_elements_and_safeness():
    assert french_typography("<p>Un <em>mot</em>? Oui</p>") == f"<p>Un <em>mot</em>{NNBSP}? Oui</p>"
    assert isinstance(french_typography(Template("{{ x }}").render(Context({"x": "a?"}))), SafeData)


def test_only_french_texts_get_french_typography():
    assert html("Really? Yes: 50 %", language="en").strip() == "<p>Really? Yes: 50 %</p>"
    assert html("Vraiment? Oui: 50 %", language="fr-ca").strip() == (
        f"<p>Vraiment{NNBSP}? Oui{NBSP}: 50{NNBSP}%</p>"
    )


def test_french_typography_is_idempotent():
    once = html("« Vraiment? » Oui: 50%!", language="fr")
    assert french_typography(once) == once


def test_problems_speak_the_editors_language():
    with translation.override("fr"):
        (message,) = problems("$\\frac{a$")
    assert message == (
        f"La formule commençant par «{NBSP}\\frac{{a{NBSP}» a une accolade "
        f"«{NBSP}{{{NBSP}» ou «{NBSP}}}{NBSP}» de trop."
    )


def test_images_only_from_the_sites_media(settings):
    settings.MEDIA_URL = "/media/"
    output = html('![A diagram](/media/quizzes/dp.png "Replicas") ![x](/static/y.png)')
    assert '<img src="/media/quizzes/dp.png" alt="A diagram" title="Replicas">' in output
    assert output.count("<img") == 1 and "![x](/static/y.png)" in output
    assert_harmless(html("![x](/media/a.png) <img src=/media/a.png onerror=alert(1)>"))


# Every command of latex2mathml that writes its argument as text (<mtext>).
TEXT_COMMANDS = ["text", "textrm", "textbf", "textit", "texttt", "textsf", "mbox", "hbox", "fbox"]


@pytest.mark.parametrize("command", TEXT_COMMANDS)
def test_text_in_a_formula_is_text_never_markup(command):
    output = html(f"${{\\{command}{{<img src=https://example.com/x.png><h3>Big</h3> & a < b}}}}$")
    tags = {tag.lower() for tag in re.findall(r"<\s*([A-Za-z][\w-]*)", output)}
    assert tags and tags <= {"p", "math", "mrow", "mtext", "mstyle", "menclose"}
    assert (
        "&lt;img" in output
        and "&lt;h3&gt;Big" in output
        and "&amp; a &lt; b" in output.replace("&nbsp;", " ")
    )


def test_a_formula_that_closes_its_text_to_hold_tags_is_refused():
    source = r"$\text{</mtext><h3>x</h3><mtext>}$"
    assert "<h3>" not in html(source)
    assert "holds HTML tags" in problems(source)[0]


@pytest.mark.parametrize(
    "url",
    [
        "/media/../en/accounts/delete/",
        "/media/content/../../en/",
        "/media/%2e%2e/en/",
        "/media/%2E%2E/en/",
        "/media/..%2fen/",
        "/media/.%2e/en/",
        "/media/\\..\\en/",
        "/media/./x.png",
    ],
)
def test_a_media_url_that_leaves_the_media_is_neither_a_link_nor_an_image(url):
    assert "href" not in html(f"[x]({url})")
    assert "<img" not in html(f"![x]({url})")


def test_media_links_and_images_within_the_media_stay():
    assert 'href="/media/content/a.png"' in html("[x](/media/content/a.png)")
    assert 'src="/media/content/a..b.png"' in html("![x](/media/content/a..b.png)")


def test_french_apostrophes_are_typographic_outside_code_and_maths():
    output = html("L'état de l'optimiseur, `l'x` et $a'$ ; 'cité'", language="fr")
    assert "L’état de l’optimiseur" in output
    assert "<code>l'x</code>" in output and "'cité'" in output
    assert "l'optimiseur" in html("l'optimiseur", language="en")  # English keeps what it has.


@pytest.mark.parametrize("inline", [False, True])
@pytest.mark.parametrize(
    "source",
    [
        "No formula, `code` and **bold**.",
        "$x^2$ and $$\\frac{a}{b}$$ inline",
        "$\\frac{a$ then $\\def\\a{b}$ then $\\foo$",
        "- item $\\sqrt{2$\n\n$$\n\\frac{1}{2\n$$\n",
        "$" + "x" * 600 + "$",
        " ".join(["$" + "y" * 400 + "$"] * 3),
        "```python\nprice = '$5 and $x$'\n```\n\n$\\text{<b>}$",
        "$5 and $6 stay money, $ x $ too",
    ],
)
def test_problems_find_what_rendering_finds_without_rendering(source, inline):
    env: dict = {}
    rendering._to_html(source, inline=inline, env=env)
    assert problems(source, inline=inline) == env.get("problems", [])
