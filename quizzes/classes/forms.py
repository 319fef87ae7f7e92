from datetime import timedelta

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from quizzes.models import (
    CLASS_CODE_ALPHABET,
    CLASS_CODE_LENGTH,
    Assignment,
    Class,
    Grading,
    ReviewShown,
    class_code_typed,
)


class ClassForm(forms.Form):
    name = forms.CharField(
        label=_("Name of the class"),
        max_length=Class._meta.get_field("name").max_length,
        help_text=_("As your learners know it, for example “Data parallelism, spring term”."),
    )


class JoiningForm(forms.Form):
    joining = forms.ChoiceField(choices=[("open", _("open")), ("closed", _("closed"))])

    @property
    def joining_open(self) -> bool:
        return self.cleaned_data["joining"] == "open"


class JoinCodeForm(forms.Form):
    # Longer than a code, for the spaces and dashes people type in it.
    code = forms.CharField(
        label=_("Class code"),
        max_length=40,
        help_text=_("The eight letters and digits your instructor gave you, as K7QX-29MF."),
    )

    def clean_code(self) -> str:
        code = class_code_typed(self.cleaned_data["code"])
        if len(code) != CLASS_CODE_LENGTH or not set(code) <= set(CLASS_CODE_ALPHABET):
            raise ValidationError(
                _("A class code is eight letters and digits, as K7QX-29MF."), code="malformed"
            )
        return code


# Bounds that keep every date and duration within what the database and Python's dates hold
# (a deadline is a start plus a limit), and within reason.
EARLIEST_YEAR, LATEST_YEAR = 2000, 2100
MAX_MINUTES = 7 * 24 * 60  # A week.
MAX_ATTEMPTS = 100


def _minutes(minutes: int | None) -> timedelta | None:
    return None if minutes is None else timedelta(minutes=minutes)


class AssignmentRulesForm(forms.Form):
    """The rules of an assignment, as an instructor sets them and changes them. Dates are in
    the site's time zone."""

    opens_at = forms.DateTimeField(
        label=_("Opens"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Empty: open now."),
    )
    closes_at = forms.DateTimeField(
        label=_("Closes (due date)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Empty: never closes."),
    )
    time_limit = forms.IntegerField(
        label=_("Time limit (minutes)"),
        required=False,
        min_value=1,
        max_value=MAX_MINUTES,
        help_text=_("Empty: no time limit."),
    )
    attempt_limit = forms.IntegerField(
        label=_("Attempts allowed"),
        required=False,
        min_value=1,
        max_value=MAX_ATTEMPTS,
        help_text=_("Empty: unlimited."),
    )
    grading = forms.ChoiceField(label=_("Grading method"), choices=Grading.choices)
    review = forms.ChoiceField(
        label=_("Answers and explanations shown"), choices=ReviewShown.choices
    )

    def clean(self) -> dict:
        data = super().clean()
        for name in ("opens_at", "closes_at"):
            when = data.get(name)
            if when is not None and not EARLIEST_YEAR <= when.year <= LATEST_YEAR:
                self.add_error(
                    name,
                    _("Give a date between %(first)s and %(last)s.")
                    % {"first": EARLIEST_YEAR, "last": LATEST_YEAR},
                )
                data[name] = None
        opens_at, closes_at = data.get("opens_at"), data.get("closes_at")
        if opens_at is not None and closes_at is not None and closes_at <= opens_at:
            self.add_error("closes_at", _("An assignment closes after it opens."))
        if data.get("review") == ReviewShown.AFTER_CLOSE and closes_at is None:
            if "closes_at" not in self.errors:
                self.add_error("closes_at", _("Give a closing date: the review shows after it."))
        return data

    @property
    def rules(self) -> dict:
        """The rules as the Assignment keeps them."""
        data = self.cleaned_data
        return {
            "opens_at": data["opens_at"],
            "closes_at": data["closes_at"],
            "time_limit": _minutes(data["time_limit"]),
            "attempt_limit": data["attempt_limit"],
            "grading": data["grading"],
            "review": data["review"],
        }

    @classmethod
    def initial_of(cls, assignment: Assignment) -> dict:
        limit = assignment.time_limit
        return {
            "opens_at": assignment.opens_at,
            "closes_at": assignment.closes_at,
            "time_limit": None if limit is None else int(limit.total_seconds() // 60),
            "attempt_limit": assignment.attempt_limit,
            "grading": assignment.grading,
            "review": assignment.review,
        }


class AssignmentNewForm(AssignmentRulesForm):
    """A new assignment: a published quiz, or a guide path (each of its published quizzes)."""

    target = forms.ChoiceField(label=_("Quiz or guide path"))

    field_order = ["target"]

    def __init__(self, *args, targets: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["target"].choices = [("", "—")] + targets


class OverrideForm(forms.Form):
    learner = forms.TypedChoiceField(label=_("Learner"), coerce=int)
    extra_time = forms.IntegerField(
        label=_("Extra time (minutes)"), min_value=0, max_value=MAX_MINUTES, initial=0
    )
    extra_attempts = forms.IntegerField(
        label=_("Extra attempts"), min_value=0, max_value=MAX_ATTEMPTS, initial=0
    )

    def __init__(self, *args, learners: list[tuple[int, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["learner"].choices = [("", "—")] + learners

    def clean(self) -> dict:
        data = super().clean()
        if data.get("extra_time") == 0 and data.get("extra_attempts") == 0:
            raise ValidationError(_("Give extra time, extra attempts or both."))
        return data
