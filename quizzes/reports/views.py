"""The instructors' score reports and their CSV exports."""

from dataclasses import replace
from functools import wraps
from uuid import UUID

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
    QueryDict,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.utils.functional import cached_property
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from quizsite.replica import replica_failed, reports_source
from quizsite.routers import REPORTS, reading_reports, reading_reports_stream
from quizsite.spreadsheets import csv_lines
from quizzes.models import Class, ExportStatus, Quiz, ReportExport
from quizzes.reports import background, exports, rollups
from quizzes.reports import selectors as reports
from quizzes.reports.forms import ReportFilterForm


def _report_form(request: HttpRequest) -> ReportFilterForm:
    return background.report_form(request.GET)


def _get_report_quiz(slug: str) -> Quiz:
    quiz = reports.quiz_for_report(slug=slug)
    if quiz is None:
        raise Http404(_("There is no quiz at this address."))
    return quiz


def _bad_filters(form: ReportFilterForm) -> HttpResponseBadRequest:
    errors = [str(error) for errors in form.errors.values() for error in errors]
    return HttpResponseBadRequest(
        "\n".join([_("These report filters can't be used:"), *errors]),
        content_type="text/plain; charset=utf-8",
    )


def _taught_by(request: HttpRequest) -> int | None:
    """None for a reader of every learner, else the user's id (`background.taught_by_of`)."""
    return background.taught_by_of(request.user)


def _instructors_only(view):
    """Instructors only: the site-wide report permission, or a class's instructor (who reads
    their learners only, `_taught_by`)."""

    @wraps(view)
    def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if _taught_by(request) is not None and not reports.teaches_a_class(user=request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return login_required(checked)


def _for_instructors(view):
    """Instructors only (`_instructors_only`); every query of the view reads from the reports'
    database: the replica, or the primary when the replica is down or too far behind
    (quizsite/replica.py), as `request.reports_source` says, to the page and in a header."""

    @wraps(view)
    def on_reports(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        request.reports_source = reports_source()
        try:
            with reading_reports(request.reports_source.alias):
                response = view(request, *args, **kwargs)
        except (OperationalError, InterfaceError) as error:
            if request.reports_source.alias != REPORTS:
                raise  # the primary's: the 503 page (quizsite/middleware.py)
            # The replica went away during the page: the page again, from the primary.
            request.reports_source = replica_failed(error)
            with reading_reports(DEFAULT_DB_ALIAS):
                response = view(request, *args, **kwargs)
        response["Quizsite-Reports-Source"] = request.reports_source.header
        return response

    return _instructors_only(on_reports)


def _report_filter(
    request: HttpRequest, form: ReportFilterForm
) -> tuple[reports.ReportFilter, Class | None]:
    """The valid form's filter for this reader, and the class it asks for (a class the
    reader may not see is not found, as one that isn't)."""
    taught_by = _taught_by(request)
    report_filter = form.report_filter(taught_by=taught_by)
    if report_filter.klass is None:
        return report_filter, None
    klass = reports.class_for_report(class_id=report_filter.klass, taught_by=taught_by)
    if klass is None:
        raise Http404(_("There is no class of yours at this address."))
    return report_filter, klass


def _filter_context(request: HttpRequest, klass: Class | None) -> dict:
    """What the filters' box says of whose attempts it reads: a class's, or only the
    reader's classes' learners."""
    query = _query_without_page(request)
    query.pop("class", None)
    return {
        "klass": klass,
        "scoped": _taught_by(request) is not None,
        "without_class": query.urlencode(),
    }


@_for_instructors
def reports_index(request: HttpRequest) -> HttpResponse:
    overview = reports.quizzes_overview(
        replace(reports.DEFAULT_FILTER, taught_by=_taught_by(request))
    )
    return render(request, "quizzes/reports/index.html", {"quizzes": overview})


HISTOGRAM_HEIGHT = 160
HISTOGRAM_BAR = 40


def _query_without_page(request: HttpRequest) -> QueryDict:
    """The page's filters and sort, for links to another page of its list or another sort."""
    query = request.GET.copy()
    query.pop("page", None)
    return query


def _histogram_bars(histogram: list[reports.HistogramBin]) -> dict:
    """Geometry of the score histogram's bars, drawn as inline SVG by the template."""
    top = max((item.count for item in histogram), default=0) or 1
    bars = []
    for index, item in enumerate(histogram):
        height = round((HISTOGRAM_HEIGHT - 20) * item.count / top)
        bars.append(
            {
                "item": item,
                "x": index * HISTOGRAM_BAR + 4,
                "y": HISTOGRAM_HEIGHT - height,
                "height": height,
                "middle": index * HISTOGRAM_BAR + HISTOGRAM_BAR // 2,
            }
        )
    return {
        "bars": bars,
        "band": reports.HISTOGRAM_BAND,
        "width": HISTOGRAM_BAR * len(histogram),
        "bar_width": HISTOGRAM_BAR - 8,
        "baseline": HISTOGRAM_HEIGHT,
        "height": HISTOGRAM_HEIGHT + 24,
    }


def _learner_columns(request: HttpRequest, current: str) -> list[dict]:
    """The learners table's headings: each links to sorting by it (again: reversed)."""
    labels = {
        "name": _("Learner"),
        "attempts": _("Attempts"),
        "best": _("Best score"),
        "last_score": _("Last score"),
        "last_date": _("Last attempt"),
    }
    query = _query_without_page(request)
    columns = []
    for key in reports.LEARNER_SORTS:
        state = None
        if current.removeprefix("-") == key:
            state = "descending" if current.startswith("-") else "ascending"
        if state:
            query["sort"] = key if state == "descending" else f"-{key}"
        else:
            query["sort"] = key if key == "name" else f"-{key}"
        columns.append(
            {"key": key, "label": labels[key], "url": f"?{query.urlencode()}", "state": state}
        )
    return columns


class _CountedPaginator(Paginator):
    """A paginator told its count, which the report already has from a cheaper query."""

    def __init__(self, object_list, per_page: int, *, count: int):
        super().__init__(object_list, per_page)
        self._count = count

    @cached_property
    def count(self) -> int:
        return self._count


@_for_instructors
def report_quiz(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _get_report_quiz(slug)
    form = _report_form(request)
    if not form.is_valid():
        return render(
            request, "quizzes/reports/quiz.html", {"quiz": quiz, "form": form}, status=400
        )
    report_filter, klass = _report_filter(request, form)
    # The rollups' deltas folded first, on the primary (the replica can't write): the page
    # reads them with the rollups, as few as possible.
    rollups.compact(quiz.pk)
    items = reports.item_analysis(quiz, report_filter)
    summary = reports.quiz_summary(quiz, report_filter, items=items)
    sort = form.cleaned_data["sort"] or "-last_date"
    overview = reports.learners_overview(quiz, report_filter)
    learners = _CountedPaginator(
        reports.learners(quiz, report_filter, sort=sort), 50, count=overview.signed_in
    )
    query = _query_without_page(request)
    return render(
        request,
        "quizzes/reports/quiz.html",
        {
            "quiz": quiz,
            "form": form,
            "summary": summary,
            "histogram": _histogram_bars(summary.histogram),
            "items": items,
            "learners": learners.get_page(form.cleaned_data["page"]),
            "anonymous": overview.anonymous,
            "learner_columns": _learner_columns(request, sort),
            "page_query": query.urlencode(),
            "csv_query": request.GET.urlencode(),
            **_filter_context(request, klass),
        },
    )


@_for_instructors
def report_attempts(request: HttpRequest, slug: str) -> HttpResponse:
    """The attempts the report counts, under its filters, newest first, each linked to its
    review."""
    quiz = _get_report_quiz(slug)
    form = _report_form(request)
    if not form.is_valid():
        return render(
            request, "quizzes/reports/attempts.html", {"quiz": quiz, "form": form}, status=400
        )
    report_filter, klass = _report_filter(request, form)
    attempts = Paginator(reports.attempts_list(quiz, report_filter), 50).get_page(
        form.cleaned_data["page"]
    )
    attempts.object_list = [reports.AttemptRow.of(attempt) for attempt in attempts]
    query = _query_without_page(request)
    return render(
        request,
        "quizzes/reports/attempts.html",
        {
            "quiz": quiz,
            "form": form,
            "attempts": attempts,
            "page_query": query.urlencode(),
            **_filter_context(request, klass),
        },
    )


@_for_instructors
def report_attempt(request: HttpRequest, slug: str, public_id: UUID) -> HttpResponse:
    """One attempt as the learner took it: every question, their picks, the verdicts and
    the right answers, in the attempt's language."""
    quiz = _get_report_quiz(slug)
    review = reports.attempt_review(quiz=quiz, public_id=public_id, taught_by=_taught_by(request))
    if review is None:
        raise Http404(_("This quiz has no such attempt."))
    return render(request, "quizzes/reports/attempt.html", {"quiz": quiz, "review": review})


def _csv_response(rows, filename: str, alias: str) -> StreamingHttpResponse:
    # Read after the view has returned: the rows' queries too must go to the reports' database,
    # the one the view read from.
    response = StreamingHttpResponse(
        reading_reports_stream(csv_lines(rows), alias), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _csv_export(export, suffix: str):
    """A view streaming `export(quiz=..., report_filter=...)`'s rows as `<slug>-<suffix>.csv`."""

    @_for_instructors
    def view(request: HttpRequest, slug: str) -> HttpResponse:
        quiz = _get_report_quiz(slug)
        form = _report_form(request)
        if not form.is_valid():
            return _bad_filters(form)
        report_filter, _klass = _report_filter(request, form)
        rows = export(quiz=quiz, report_filter=report_filter)
        return _csv_response(rows, f"{quiz.slug}-{suffix}.csv", request.reports_source.alias)

    return view


report_attempts_csv = _csv_export(exports.attempt_rows, "attempts")
report_questions_csv = _csv_export(exports.question_rows, "questions")


# The attempts.csv written by the task worker (background.py). These views read and write the
# export's record on the primary, never the reports' replica: a replica behind would not have
# the record just made, nor the worker's latest progress.


def _export_for(request: HttpRequest, export_id: UUID) -> ReportExport:
    """The user's own export; 404 for another's, as for one that doesn't exist."""
    export = (
        ReportExport.objects.select_related("quiz")
        .filter(pk=export_id, requested_by=request.user)
        .first()
    )
    if export is None:
        raise Http404(_("There is no export of yours at this address."))
    return export


@require_POST
@_instructors_only
def report_attempts_export(request: HttpRequest, slug: str) -> HttpResponse:
    """Ask the task worker for the attempts.csv under the report's filters (the query
    string, as the streamed CSV's); its page follows it."""
    quiz = _get_report_quiz(slug)
    form = _report_form(request)
    if not form.is_valid():
        return _bad_filters(form)
    _report_filter(request, form)  # A class the reader may not see is a 404.
    export = background.export_request(
        user=request.user, quiz=quiz, query=request.GET.urlencode(), language=get_language()
    )
    return redirect("report_export", export_id=export.pk)


def _export_progress(export: ReportExport) -> dict:
    """Where an export is, for its page and its script: a lost one is failed."""
    lost = background.export_lost(export)
    status = ExportStatus.FAILED.value if lost else export.status
    text, count = _("The export waits for the task worker to start it."), ""
    if status == ExportStatus.RUNNING:
        text = _("Writing the file.")
        count = _("Counting the attempts.")
    if status == ExportStatus.RUNNING and export.rows_total is not None:
        count = _("%(written)s of %(total)s attempts written.") % {
            "written": export.rows_written,
            "total": export.rows_total,
        }
    return {
        "status": status,
        "lost": lost,
        "rows_written": export.rows_written,
        "rows_total": export.rows_total,
        "text": text,
        "count": count,
    }


@_instructors_only
def report_export(request: HttpRequest, export_id: UUID) -> HttpResponse:
    """An export's page: waiting or running (its progress; the page's script follows it,
    without script a link reloads it), failed (a button retries it), or its file."""
    export = _export_for(request, export_id)
    context = {
        "export": export,
        "quiz": export.quiz,
        "progress": _export_progress(export),
        "ready": background.export_file_path(export) is not None,
        "keep_hours": max(1, round(settings.EXPORT_KEEP_SECONDS / 3600)),
    }
    return render(request, "quizzes/reports/export.html", context)


@_instructors_only
def report_export_progress(request: HttpRequest, export_id: UUID) -> JsonResponse:
    """The export's progress for the page's script."""
    return JsonResponse(_export_progress(_export_for(request, export_id)))


@_instructors_only
def report_export_file(request: HttpRequest, export_id: UUID) -> FileResponse:
    export = _export_for(request, export_id)
    path = background.export_file_path(export)
    if path is None:
        raise Http404(_("This export is not ready, or its file has been deleted."))
    return FileResponse(
        open(path, "rb"),  # FileResponse closes it.
        as_attachment=True,
        filename=f"{export.quiz.slug}-attempts.csv",
        content_type="text/csv; charset=utf-8",
    )


@require_POST
@_instructors_only
def report_export_retry(request: HttpRequest, export_id: UUID) -> HttpResponse:
    export = _export_for(request, export_id)
    if not background.export_retry(export=export):
        return HttpResponseBadRequest(
            _("This export has not failed: there is nothing to retry."),
            content_type="text/plain; charset=utf-8",
        )
    return redirect("report_export", export_id=export.pk)
