"""The report pages' filters."""

from django import forms
from django.utils.translation import gettext_lazy as _

from quizzes.models import origin_normalised
from quizzes.reports.selectors import ReportFilter


class ReportFilterForm(forms.Form):
    """The filters of a quiz report, read from the query string."""

    FIRST = "first"
    ALL = "all"

    date_from = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    language = forms.ChoiceField(label=_("Language of the attempt"), required=False)
    attempts = forms.ChoiceField(
        label=_("Attempts"),
        required=False,
        choices=[(FIRST, _("First attempt of each learner")), (ALL, _("All attempts"))],
    )
    practice = forms.BooleanField(
        label=_("Count practice and single-question attempts too"), required=False
    )
    site = forms.CharField(
        label=_("Embedded in the site"),
        required=False,
        max_length=300,
        widget=forms.TextInput(attrs={"placeholder": "https://guide.example.org"}),
    )
    sort = forms.ChoiceField(label=_("Sort learners by"), required=False)
    page = forms.IntegerField(label=_("Page"), required=False, min_value=1)

    def __init__(self, *args, languages, sorts, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = [("", _("All languages")), *languages]
        self.fields["sort"].choices = [("", "")] + [
            (f"{sign}{key}", f"{sign}{key}") for key in sorts for sign in ("", "-")
        ]
        # ?class=<id>: a class's report, kept by the filters' form as it is (the gradebook
        # links to it; the view finds the class, or answers 404).
        self.fields["class"] = forms.IntegerField(
            required=False, min_value=1, max_value=2**31 - 1, widget=forms.HiddenInput
        )

    def clean_site(self) -> str:
        """An embedding site's origin, as EmbedOrigin keeps it; empty: every attempt."""
        site = self.cleaned_data["site"]
        return origin_normalised(site) if site else ""

    def clean(self):
        data = super().clean()
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError(_("The start date must not be after the end date."))
        return data

    def report_filter(self, *, taught_by: int | None) -> ReportFilter:
        """The filter the form asks for, read by `taught_by`'s rights (see ReportFilter)."""
        data = self.cleaned_data
        return ReportFilter(
            date_from=data["date_from"],
            date_to=data["date_to"],
            language=data["language"],
            first_only=data["attempts"] != self.ALL,
            with_practice=data["practice"],
            site=data["site"],
            klass=data["class"],
            taught_by=taught_by,
        )
