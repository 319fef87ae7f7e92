"""The forms the content admins share: Markdown checked as the learner pages render it, and
reorderable inline rows."""

import re
from decimal import Decimal

import django
from adminsortable2.admin import CustomInlineFormSetMixin, SortableAdminBase
from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import F
from django.forms.fields import InvalidJSONInput
from django.utils.translation import gettext
from modeltranslation.utils import build_localized_fieldname

from quizzes import kinds
from quizzes.kinds import Grading, calculated, gaps
from quizzes.kinds.numerical import unit_problems
from quizzes.models import (
    PARTIAL_CREDIT_ONLY_SEVERAL,
    Choice,
    Question,
    Quiz,
    content_place,
    edited_choice,
    prompts_of,
    translated_fields,
)
from quizzes.snapshots import (
    markdown_lengths,
    quiz_length_problems,
    saved_markdown_lengths,
    text_problems,
)


class ContentForm(forms.ModelForm):
    """Refuses Markdown the learner pages would show broken (a formula that can't be turned
    into MathML, a text past the renderer's limits), on the field and language at fault."""

    def clean(self):
        cleaned_data = super().clean()
        for field in translated_fields(self._meta.model):
            for code, _name in settings.LANGUAGES:
                name = f"{field}_{code}"
                source = cleaned_data.get(name)
                if name in self.fields and isinstance(source, str):
                    for problem in text_problems(field=field, language=code, source=source):
                        self.add_error(name, problem)
        return cleaned_data


class VariablesField(forms.JSONField):
    """A calculated question's variables as JSON, refused with a message when too long, nested
    too deep to read (which json.loads meets with a RecursionError) or holding a number too
    long for Python's int (a ValueError). Shown without
    the hidden copy of its initial value that a callable default gets, which carries the
    help text's aria-describedby (refused by the Nu checker)."""

    MAX_LENGTH = 10_000

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.show_hidden_initial = False

    def to_python(self, value):
        if isinstance(value, str) and len(value) > self.MAX_LENGTH:
            message = gettext("The variables are %(count)s characters at most.")
            raise ValidationError(message % {"count": self.MAX_LENGTH}, code="invalid")
        try:
            return super().to_python(value)
        except (RecursionError, ValueError):  # Too deep; a number of over 4,300 digits.
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None

    def bound_data(self, data, initial):
        """As typed, shown again as it was when it can't be read."""
        if isinstance(data, str) and len(data) > self.MAX_LENGTH:
            return InvalidJSONInput(data)
        try:
            return super().bound_data(data, initial)
        except (RecursionError, ValueError):
            return InvalidJSONInput(data)


def gap_kinds_read(value) -> list[str]:
    """The gaps' kinds as an editor writes them, in order, separated by commas ("numerical,
    single, short answer"; a quiz file's list, in brackets and quotes, reads too), each in
    lower case with its spaces and hyphens as "_" ("short_answer"); a kind left out ("a,,b")
    reads as "". `Question.gaps` (a list) reads as it is."""
    if isinstance(value, list | tuple):
        return [str(kind) for kind in value]
    text = str(value or "").strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    kinds = [
        re.sub(r"[\s-]+", "_", part.strip().strip("\"'").strip().lower())
        for part in text.split(",")
    ]
    if kinds and not kinds[-1]:  # A trailing comma, or nothing at all.
        kinds.pop()
    return kinds


class GapKindsField(forms.CharField):
    """A gaps question's `Question.gaps`, the kind of each gap in order, written as a line of
    kinds separated by commas (`gap_kinds_read`) and cleaned to their list; a kind left out
    is refused. Its kinds are checked by the form, which knows the question's kind."""

    MAX_LENGTH = 200  # Eight gaps of the longest kind's name, with room to spare.

    def __init__(self, **kwargs):
        super().__init__(max_length=self.MAX_LENGTH, required=False, **kwargs)
        self.widget.attrs |= {
            "class": "vTextField",
            "autocomplete": "off",
            "autocapitalize": "off",
            "spellcheck": "false",
        }

    def prepare_value(self, value):
        return ", ".join(value) if isinstance(value, list | tuple) else value

    def has_changed(self, initial, data) -> bool:
        return gap_kinds_read(initial) != gap_kinds_read(data)

    def clean(self, value) -> list[str]:
        kinds = gap_kinds_read(super().clean(value))
        if "" in kinds:
            message = gettext(
                "Gap %(number)s has no kind: write the kind of each gap, separated by commas."
            )
            raise ValidationError(message % {"number": kinds.index("") + 1}, code="invalid")
        return kinds


class QuestionForm(ContentForm):
    """A question on its own page: left blank, its position is the one after its quiz's last
    question."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "position" in self.fields:
            self.fields["position"].required = False
            self.fields["position"].help_text = gettext(
                "Left blank: after the quiz's last question. The quiz's page reorders its "
                "questions by dragging or with the Move buttons."
            )
        if "key" in self.fields:
            self.fields["key"].required = False
        if "grading" in self.fields:  # Left out of a post (a kind without it): all or nothing.
            self.fields["grading"].required = False
        if "variables" in self.fields:
            field = self.fields["variables"]
            self.fields["variables"] = VariablesField(
                label=field.label, help_text=field.help_text, required=False
            )
        if "gaps" in self.fields:
            self.fields["gaps"] = GapKindsField(
                label=self.fields["gaps"].label,
                help_text=gettext(
                    "Gaps (cloze) questions only: the kind of each gap [[1]], [[2]]… of the "
                    "prompt, in order, separated by commas. single: a list of the gap’s "
                    "choices to pick from; short_answer: a word or a few, typed; numerical: a "
                    "number, typed. For example: numerical, single, short_answer. Give each "
                    "choice the number of its gap."
                ),
            )

    def clean_grading(self):
        return self.cleaned_data.get("grading") or Grading.ALL

    def clean_variables(self):
        """A calculated question's variables, kept as `Question.variables` keeps them (the
        formulas are checked with the choices, ChoiceInlineFormSet)."""
        raw = self.cleaned_data.get("variables")
        kind = kinds.KINDS.get(self.cleaned_data.get("kind") or "")
        if raw in (None, "", []):
            return []
        if kind is not None and not kind.has_variables:
            raise ValidationError(gettext("Only calculated questions have variables."))
        variables, problems = calculated.parse_variables(raw)
        if problems:
            raise ValidationError(problems)
        return calculated.stored_variables(variables)

    def clean_gaps(self):
        """A gaps question's gaps' kinds, as `Question.gaps` keeps them (their gaps in the
        prompt and their choices are checked with the choices, ChoiceInlineFormSet)."""
        kind = kinds.KINDS.get(self.cleaned_data.get("kind") or "")
        found = self.cleaned_data.get("gaps") or []
        if kind is None:
            return found
        if not kind.fills_prompt:
            if found:
                raise ValidationError(gettext("Only gaps questions have gaps."))
            return []
        problems = gaps.gap_kinds_problems(found)
        if problems:
            raise ValidationError(problems)
        return found

    def clean(self):
        cleaned_data = super().clean()
        quiz = cleaned_data.get("quiz")
        if "position" in self.fields and cleaned_data.get("position") is None and quiz:
            cleaned_data["position"] = self.instance.position = quiz.questions.next_position()
        kind = cleaned_data.get("kind")
        if cleaned_data.get("partial_credit") and kind and not kinds.get(kind).several:
            self.add_error("partial_credit", PARTIAL_CREDIT_ONLY_SEVERAL)
        return cleaned_data


class _Reorderable:
    """Rows may trade positions, so a row's position is checked against the other submitted
    rows (the formset does that), not against the old positions still in the database
    (Django 6 checks constraints row by row)."""

    def validate_constraints(self):
        exclude = self._get_validation_exclusions() | {"position"}
        try:
            self.instance.validate_constraints(exclude=exclude)
        except ValidationError as error:
            self._update_errors(error)


class PositionForm(_Reorderable, ContentForm):
    """A row of a reorderable inline of content (texts in each language)."""


class ChoiceForm(PositionForm):
    """A choice of the question inline: its tolerance (a numerical question's) and its credit
    may be left empty (0) and are written as the editor's language writes numbers (0,5 in
    French)."""

    NUMBERS = ("tolerance", "credit")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "gap" in self.fields:  # A choice of no gap (0, any other kind's) shows none.
            self.fields["gap"].required = False
            self.fields["gap"].widget.attrs |= {"min": 1, "max": gaps.MAX_GAPS}
            if not self.initial.get("gap"):
                self.initial["gap"] = None
        for name in self.NUMBERS:
            if name in self.fields:
                self.fields[name].required = False
                self.fields[name].localize = True
                # A number input takes only "0.5": the editor writes it as their language does.
                self.fields[name].widget = forms.TextInput(attrs={"inputmode": "decimal"})
                self.fields[name].widget.is_localized = True

    def clean_tolerance(self):
        return self.cleaned_data.get("tolerance") or Decimal(0)

    def clean_credit(self):
        return self.cleaned_data.get("credit") or Decimal(0)

    def clean_gap(self):
        return self.cleaned_data.get("gap") or 0


class UnitForm(_Reorderable, forms.ModelForm):
    """A unit of the question inline: its multiplier as the editor's language writes numbers
    (0,001 in French), 1 when left empty."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "multiplier" in self.fields:
            self.fields["multiplier"].required = False
            self.fields["multiplier"].localize = True
            self.fields["multiplier"].widget = forms.TextInput(attrs={"inputmode": "decimal"})
            self.fields["multiplier"].widget.is_localized = True

    def clean_multiplier(self):
        multiplier = self.cleaned_data.get("multiplier")
        return Decimal(1) if multiplier is None else multiplier


class PositionsFormSet(CustomInlineFormSetMixin, forms.BaseInlineFormSet):
    """Rows ordered by dragging or by the keyboard (django-admin-sortable2 keeps `position` in
    a hidden field and renumbers it; a new row gets the position after the last), saved
    without tripping the database's unique position constraint."""

    def save(self, commit: bool = True):
        if commit:
            moved = [
                form.instance.pk
                for form in self.initial_forms
                if "position" in form.changed_data or self._should_delete_form(form)
            ]
            if moved:
                model = self.model
                top = self.queryset.order_by("-position").values_list("position", flat=True).first()
                model.objects.filter(pk__in=moved).update(position=F("position") + (top or 0) + 1)
        return super().save(commit)

    def _remaining_forms(self) -> list[forms.ModelForm]:
        return [
            form
            for form in self.forms
            if form.has_changed() or form.instance.pk
            if not self._should_delete_form(form) and form.cleaned_data
        ]


class QuestionInlineFormSet(PositionsFormSet):
    def clean(self):
        super().clean()
        if any(self.errors):
            return
        self._lengths_check()
        if not self.instance.is_published:
            return
        kept = self._remaining_forms()
        if not kept:
            raise ValidationError(gettext("A published quiz needs at least one question."))
        if any(form.instance.pk is None for form in kept):
            raise ValidationError(
                gettext(
                    "A question added here has no choices yet, and this quiz is published. "
                    "Add the question from the “Add question” page with its choices, "
                    "or unpublish the quiz first."
                )
            )
        # A kind or a prompt changed here must still suit the question's choices (a gaps
        # prompt keeps its gaps), as publishing asks of every question.
        problems = [
            f"{content_place(form.instance.position)}: {problem}"
            for form in kept
            if form.has_changed()
            for problem in form.instance.choice_problems()
        ]
        if problems:
            raise ValidationError(problems)

    def _lengths_check(self) -> None:
        """The quiz as submitted stays within its pages' rendering budget."""
        quiz = self.instance
        kept = self._remaining_forms()
        lengths = markdown_lengths(Quiz, vars(quiz))
        for form in kept:
            lengths += markdown_lengths(Question, vars(form.instance))
        if quiz.pk is not None:
            submitted = [form.instance.pk for form in self.forms if form.instance.pk is not None]
            removed = [pk for pk in submitted if pk not in {form.instance.pk for form in kept}]
            lengths += saved_markdown_lengths(
                Question.objects.filter(quiz=quiz).exclude(pk__in=submitted)
            )
            lengths += saved_markdown_lengths(
                Choice.objects.filter(question__quiz=quiz).exclude(question__in=removed)
            )
        problems = quiz_length_problems(lengths)
        if problems:
            raise ValidationError(problems)


class ChoiceInlineFormSet(PositionsFormSet):
    def _construct_form(self, i, **kwargs):
        """A row whose text may be left empty for the question's kind (a matching question's
        distractor): the kind's `value_problems` say what must be there."""
        form = super()._construct_form(i, **kwargs)
        name = build_localized_fieldname("text", settings.LANGUAGE_CODE)
        if self.instance.type.texts_optional and name in form.fields:
            form.fields[name].required = False
            form.fields[name].empty_value = ""  # Kept as the other kinds' texts are: a text.
        return form

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        self._lengths_check()
        kind, kept = self.instance.type, self._remaining_forms()
        edited = [edited_choice(form.cleaned_data) for form in kept]
        problems = [
            *kind.problems([form.cleaned_data.get("is_correct", False) for form in kept]),
            *kind.value_problems(edited),
        ]
        if not problems:
            problems = kind.variable_problems(self.instance.variables, edited)
        if not problems:
            prompts = prompts_of(vars(self.instance))
            problems = kind.gap_problems(self.instance.gaps, prompts, edited)
        if problems:
            raise ValidationError(problems)

    def _lengths_check(self) -> None:
        """The question's quiz, with the question and its choices as submitted, stays within
        its pages' rendering budget."""
        question = self.instance
        if question.quiz_id is None:
            return
        lengths = markdown_lengths(Question, vars(question))
        for form in self._remaining_forms():
            lengths += markdown_lengths(Choice, vars(form.instance))
        lengths += saved_markdown_lengths(Quiz.objects.filter(pk=question.quiz_id))
        others = Question.objects.filter(quiz=question.quiz_id).exclude(pk=question.pk)
        lengths += saved_markdown_lengths(others)
        lengths += saved_markdown_lengths(Choice.objects.filter(question__in=others))
        problems = quiz_length_problems(lengths)
        if problems:
            raise ValidationError(problems)


class UnitInlineFormSet(PositionsFormSet):
    """A numerical question's units: names learners can type, one base unit of multiplier 1."""

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        units = [
            (form.cleaned_data.get("name", ""), form.cleaned_data.get("multiplier"))
            for form in self._remaining_forms()
        ]
        problems = unit_problems(units)
        if problems:
            raise ValidationError(problems)


def reorder_script() -> forms.Script:
    """The keyboard's way to reorder a sortable inline (quizsite/static/quizsite/admin-reorder.js):
    its texts come in the script's data attributes, in the editor's language."""
    return forms.Script(
        "quizsite/admin-reorder.js",
        **{
            "data-up": gettext("Move up"),
            "data-down": gettext("Move down"),
            "data-moved": gettext("Moved to position %(position)s of %(count)s."),
            "data-order": gettext("Order"),
        },
    )


class SortableParentMixin(SortableAdminBase):
    """For the admin of a model whose change page has a SortableInlineMixin inline: sortable2's
    scripts, with Django's own actions.js kept (sortable2 swaps in a patched copy, for sortable
    change lists only, and has none for Django 6.1)."""

    @property
    def media(self):
        media = super().media
        # A name, or on Django 6.1 a Script whose str() renders its tag, looking its path up
        # in the static files' manifest, which has no actions-6.1.js: its path, unrendered.
        js = [
            "admin/js/actions.js"
            if str(getattr(name, "_path", name)).startswith("adminsortable2/js/actions-")
            else name
            for name in media._js
        ]
        return forms.Media(css=media._css, js=js)


class SortableInlineMixin:
    """For a tabular inline of rows with a `position` (the parent's admin derives from
    adminsortable2's SortableAdminBase): drag, "first" and "last" from django-admin-sortable2,
    Move up and Move down buttons for the keyboard."""

    # django-admin-sortable2 2.3.1 has templates up to Django 6.0's, whose tabular inline
    # Django 6.1 keeps.
    template = "adminsortable2/edit_inline/tabular-django-{}.{}.html".format(
        *min(django.VERSION[:2], (6, 0))
    )

    @property
    def media(self):
        return super().media + forms.Media(
            js=[reorder_script()], css={"all": ["quizsite/admin-reorder.css"]}
        )
