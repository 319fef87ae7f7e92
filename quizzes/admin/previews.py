"""The question admin's Preview: besides Django's buttons, "Preview" shows the typed question
as learners will read it in each language, without saving; the change page also previews the
saved question."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.utils.html import format_html, format_html_join
from django.utils.translation import get_language, gettext

from quizzes import kinds
from quizzes.admin.common import language_name
from quizzes.admin.forms import GapKindsField, QuestionForm, VariablesField, gap_kinds_read
from quizzes.kinds import calculated, gaps
from quizzes.kinds.matching import Matching
from quizzes.kinds.numerical import Numerical
from quizzes.kinds.single import SingleChoice
from quizzes.markup.rendering import Rendered, plain_title, render
from quizzes.models import Choice

PREVIEW = "_preview"


class PreviewForm(QuestionForm):
    """The question form of a Preview submit: checked as for saving, but never valid, so the
    admin shows it again with what was typed (and its errors, if any) instead of saving it."""

    def is_valid(self) -> bool:
        super().is_valid()
        return False


@dataclass(frozen=True)
class PreviewChoice:
    """A choice as learners would read it, with whether it is right and its feedback."""

    text: Rendered
    is_correct: bool
    feedback: Rendered
    match: str = ""  # A matching question's right item (plain text).
    gap: int = 0  # A gaps question's gap it belongs to, from 1.


@dataclass(frozen=True)
class Preview:
    """A question as learners of one language would read it, in the admin."""

    language: str
    name: str
    prompt: Rendered
    choices: list[PreviewChoice]
    explanation: Rendered
    fallback: bool  # Some texts show in the default language: this one has none.
    # A matching question's distinct right items, in order, as its select boxes list them;
    # its `choices` are then its left items (a distractor is only a right item).
    rights: list[str] | None = None
    # A gaps question's gaps, in order, each with its choices (its `prompt` has their
    # inputs), and last its choices of no gap it has (number 0).
    gaps: list["PreviewGap"] | None = None


@dataclass(frozen=True)
class PreviewGap:
    """A gap of a gaps question as the preview lists it: its number (0: the choices of no
    gap), the name of its kind and its choices."""

    number: int
    kind: str
    choices: list[PreviewChoice]


@dataclass(frozen=True)
class Variant:
    """A calculated question's variant as the preview lists it: its values, as the editor's
    language writes them, and each formula's value for them, or why it has none."""

    values: list[tuple[str, str]]
    results: list[str]


@dataclass(frozen=True)
class Variants:
    """Some of a calculated question's variants: its formulas (the correct ones marked),
    and a row for each variant."""

    formulas: list[tuple[str, bool]]
    rows: list[Variant]


def _variants(
    raw, choices: list[Callable[[str], str | bool]]
) -> tuple[Variants | None, dict[str, Decimal]]:
    """The variants the preview shows of a calculated question's variables (`raw`, as typed
    or saved) and choices' formulas, and the first variant's values (for the texts); None
    and no values where the variables can't be read."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw[: VariablesField.MAX_LENGTH] or "[]")
        except (RecursionError, ValueError):
            return None, {}
    variables, problems = calculated.parse_variables(raw)
    if problems or not variables:
        return None, {}
    formulas = []
    for choice in choices:
        texts = {code: choice(f"text_{code}") or "" for code, _name in settings.LANGUAGES}
        formulas.append((calculated.formula_of(texts), bool(choice("is_correct"))))
    language = get_language() or settings.LANGUAGE_CODE
    rows = []
    shown = calculated.preview(variables)
    for values in shown:
        results = []
        for formula, _correct in formulas:
            try:
                results.append(calculated.shown(calculated.evaluate(formula, values), language))
            except calculated.FormulaError as error:
                results.append(str(error))
        named = [(name, calculated.shown(value, language)) for name, value in values.items()]
        rows.append(Variant(values=named, results=results))
    return Variants(formulas=formulas, rows=rows), shown[0]


def _language_preview(
    code: str,
    value: Callable[[str], str],
    choices: list[Callable[[str], str | bool]],
    drawn: dict[str, Decimal] | None = None,
) -> Preview:
    """One language's preview, from `value("prompt_fr")`… of the question and of each choice;
    a calculated question's texts with the values `drawn`, its choices' formulas as typed.

    A text missing in this language shows in the default one, as learners would see it.
    """
    default = settings.LANGUAGE_CODE
    fallbacks = []

    def plain(get, field: str) -> str:
        text = get(f"{field}_{code}") or ""
        if not text and get(f"{field}_{default}"):
            fallbacks.append(field)
            text = get(f"{field}_{default}")
        return text

    def shown(get, field: str, *, inline: bool) -> Rendered:
        text = get(f"{field}_{code}") or ""
        language = code
        if not text and get(f"{field}_{default}"):
            fallbacks.append(field)
            text, language = get(f"{field}_{default}"), default
        if drawn and field != "text":
            text = calculated.substitute(text, drawn, language)
        return render(text, language=language, inline=inline)

    matching = value("kind") == Matching.name
    gapped = value("kind") == gaps.Gaps.name
    shown_choices = [
        PreviewChoice(
            text=shown(choice, "text", inline=True),
            is_correct=bool(choice("is_correct")),
            feedback=shown(choice, "feedback", inline=False),
            match=plain(choice, "match") if matching else "",
            gap=_gap_number(choice("gap")) if gapped else 0,
        )
        for choice in choices
    ]
    prompt = shown(value, "prompt", inline=False)
    gap_list = None
    if gapped:
        kinds_of = _gap_kinds(value("gaps"))
        options = [plain_title(plain(choice, "text")) for choice in choices]
        prompt = _gapped_prompt(prompt, kinds_of, shown_choices, options)
        gap_list = _gap_list(kinds_of, shown_choices)
    return Preview(
        language=code,
        name=language_name(code),
        prompt=prompt,
        choices=[choice for choice in shown_choices if choice.text.html or not matching],
        explanation=shown(value, "explanation", inline=False),
        fallback=bool(fallbacks),
        rights=list(dict.fromkeys(choice.match for choice in shown_choices)) if matching else None,
        gaps=gap_list,
    )


def _gap_number(value) -> int:
    """A choice's gap as typed or saved; 0 for none or what is no gap's number."""
    text = str(value if value is not None else "").strip()
    return int(text) if text.isascii() and text.isdecimal() and len(text) <= 3 else 0


def _gap_kinds(value) -> list[str]:
    """The gaps' kinds as typed or saved, each a kind of gap or "" (a blank in the prompt)
    where it is none; none at all for a text too long to be them."""
    if isinstance(value, str) and len(value) > GapKindsField.MAX_LENGTH:
        return []
    return [kind if kind in gaps.GAP_KINDS else "" for kind in gap_kinds_read(value)]


def _gapped_prompt(
    prompt: Rendered, kinds_of: list[str], choices: list[PreviewChoice], options: list[str]
) -> Rendered:
    """The prompt as the learner's form shows it: each gap [[n]] a select box of its choices
    (`options`, the choices' plain texts) or a text box, disabled; a gap of no kind stays a
    numbered blank."""
    inputs = {}
    for number, kind in enumerate(kinds_of, 1):
        label = gettext("Gap %(number)s") % {"number": number}
        if kind == SingleChoice.name:
            listed = format_html_join(
                "",
                "<option>{}</option>",
                (
                    (option,)
                    for choice, option in zip(choices, options, strict=True)
                    if choice.gap == number
                ),
            )
            inputs[number] = format_html(
                '<select class="gap-input" aria-label="{}" disabled><option>{}</option>{}</select>',
                label,
                gettext("Choose…"),
                listed,
            )
        elif kind:
            typed = "number" if kind == Numerical.name else "text"
            inputs[number] = format_html(
                '<input type="text" class="gap-input gap-{}" aria-label="{}" disabled>',
                typed,
                label,
            )
    html = gaps.filled(gaps.blanks(prompt).html, inputs)
    return Rendered(html=html, language=prompt.language)


def _gap_list(kinds_of: list[str], choices: list[PreviewChoice]) -> list[PreviewGap]:
    """The gaps with their choices, in order, then the choices of no gap the question has."""
    labels = {name: kind.label for name, kind in gaps.GAP_KINDS.items()}
    listed = [
        PreviewGap(
            number=number,
            kind=str(labels.get(kind, "")),
            choices=gaps.of_gap(choices, number),
        )
        for number, kind in enumerate(kinds_of, 1)
    ]
    stray = [choice for choice in choices if not 1 <= choice.gap <= len(kinds_of)]
    return listed + ([PreviewGap(number=0, kind="", choices=stray)] if stray else [])


class QuestionPreviewMixin:
    """For the question admin (a ModelAdmin of Question, with its choices inline); its
    change_form_template shows the `previews` and the Preview button."""

    def get_form(self, request, obj=None, **kwargs):
        if request.method == "POST" and PREVIEW in request.POST:
            kwargs["form"] = PreviewForm
        return super().get_form(request, obj, **kwargs)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        form = context["adminform"].form
        if form.is_bound:
            rows = [
                row
                for inline in context["inline_admin_formsets"]
                if inline.formset.model is Choice
                for row in inline.formset.forms
                if (row.has_changed() or row.instance.pk) and not row["DELETE"].value()
            ]
            choices = [lambda name, row=row: row[name].value() for row in rows]
            value = _bound_value(form)
        elif obj is not None:
            choices = [lambda name, c=c: getattr(c, name) for c in obj.choices.all()]
            value = _saved_value(obj)
        else:
            choices, value = [], None
        variants, drawn = None, {}
        kind = kinds.KINDS.get(value("kind")) if value is not None else None
        if kind is not None and kind.has_variables:
            variants, drawn = _variants(value("variables"), choices)
        previews = []
        if value is not None:
            previews = [
                _language_preview(code, value, choices, drawn) for code, _name in settings.LANGUAGES
            ]
        context["variants"] = variants
        context |= {"previews": previews, "previewing": PREVIEW in request.POST}
        return super().render_change_form(request, context, add, change, form_url, obj)


def _bound_value(form) -> Callable[[str], object]:
    """A field's value as the editor typed it."""
    return lambda name: form[name].value()


def _saved_value(obj) -> Callable[[str], object]:
    """A field's value as saved."""
    return lambda name: getattr(obj, name)
