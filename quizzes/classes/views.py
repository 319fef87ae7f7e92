"""Classes: an instructor's classes and rosters, and the pages where learners join one."""

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quizsite.ratelimit import ratelimit
from quizsite.spreadsheets import csv_lines
from quizzes.classes import gradebook, selectors, services
from quizzes.classes.forms import (
    AssignmentNewForm,
    AssignmentRulesForm,
    ClassForm,
    JoinCodeForm,
    JoiningForm,
    OverrideForm,
)
from quizzes.models import Class, Quiz


def _get_class_for(request: HttpRequest, class_id: int) -> Class:
    """The class if the user teaches it; any other class is not found, as one that isn't."""
    klass = selectors.class_for_instructor(class_id=class_id, user=request.user)
    if klass is None:
        raise Http404(_("There is no class of yours at this address."))
    return klass


@login_required
@permission_required("quizzes.add_class", raise_exception=True)
@require_http_methods(["GET", "HEAD", "POST"])
def class_list(request: HttpRequest) -> HttpResponse:
    """The instructor's classes, and the form that makes one."""
    form = ClassForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        klass = services.class_create(name=form.cleaned_data["name"], instructor=request.user)
        messages.success(request, _("Your class is made: give your learners its link or code."))
        return redirect(klass)
    classes = selectors.classes_taught(user=request.user)
    status = 400 if form.is_bound else 200
    return render(
        request, "quizzes/classes/index.html", {"classes": classes, "form": form}, status=status
    )


@login_required
@require_safe
def class_detail(request: HttpRequest, class_id: int) -> HttpResponse:
    """The roster, the join link and code, and the buttons that change them."""
    klass = _get_class_for(request, class_id)
    context = {
        "klass": klass,
        "roster": selectors.class_roster(klass=klass),
        "assignments": selectors.class_assignments(klass=klass),
        # On the site's own address, as the emails' links are: never the Host the request
        # named, which the client chooses.
        "join_link": settings.SITE_URL + klass.join_url(),
        "join_page": settings.SITE_URL + reverse("class_join"),
    }
    return render(request, "quizzes/classes/detail.html", context)


def _get_gradebook_class(request: HttpRequest, class_id: int) -> tuple[Class, bool]:
    """The class if the user may read its gradebook, and whether they teach it."""
    found = gradebook.class_for_gradebook(class_id=class_id, user=request.user)
    if found is None:
        raise Http404(_("There is no class of yours at this address."))
    return found


GRADEBOOK_PAGE = 100  # Learners a page; the CSV has them all.


@login_required
@require_safe
def class_gradebook(request: HttpRequest, class_id: int) -> HttpResponse:
    """Learners × assignments: each grade by the assignment's method, marks, averages."""
    klass, teaches = _get_gradebook_class(request, class_id)
    book = gradebook.gradebook(klass=klass)  # Whole: the averages are the class's.
    context = {
        "klass": klass,
        "teaches": teaches,
        "book": book,
        "learners": Paginator(book.rows, GRADEBOOK_PAGE).get_page(request.GET.get("page")),
    }
    return render(request, "quizzes/classes/gradebook.html", context)


@login_required
@require_safe
def class_gradebook_csv(request: HttpRequest, class_id: int) -> HttpResponse:
    klass, _teaches = _get_gradebook_class(request, class_id)
    response = StreamingHttpResponse(
        csv_lines(gradebook.csv_rows(klass=klass)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="gradebook-{klass.pk}.csv"'
    return response


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def assignment_new(request: HttpRequest, class_id: int) -> HttpResponse:
    """Assign a published quiz, or a guide path (one assignment per quiz), under rules."""
    klass = _get_class_for(request, class_id)
    form = AssignmentNewForm(request.POST or None, targets=selectors.assignment_targets())
    target = None
    if request.method == "POST" and form.is_valid():
        target = selectors.assignment_target(target=form.cleaned_data["target"])
        if target is None:  # Unpublished since the page showed it.
            form.add_error("target", _("This quiz or guide path is no longer published."))
    made = []
    if target is not None:
        which = {"quiz": target} if isinstance(target, Quiz) else {"guide": target}
        try:
            made = services.assignments_create(
                klass=klass, rules=form.rules, by=request.user, **which
            )
        except services.NothingToAssign:
            form.add_error("target", _("This guide path has no published quiz to assign."))
    if made:
        messages.success(
            request,
            ngettext("%(count)d assignment made.", "%(count)d assignments made.", len(made))
            % {"count": len(made)},
        )
        return redirect(klass)
    status = 400 if form.is_bound else 200
    context = {"klass": klass, "form": form}
    return render(request, "quizzes/classes/assignment_new.html", context, status=status)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def assignment_detail(request: HttpRequest, class_id: int, assignment_id: int) -> HttpResponse:
    """An assignment's rules to change, their history, and the learners' overrides."""
    klass = _get_class_for(request, class_id)
    row = _get_assignment_for(klass, assignment_id)
    assignment = row.assignment
    form = AssignmentRulesForm(
        request.POST or None, initial=AssignmentRulesForm.initial_of(assignment)
    )
    if request.method == "POST" and form.is_valid():
        services.assignment_update(assignment=assignment, rules=form.rules, by=request.user)
        messages.success(request, _("The assignment's rules are saved."))
        return redirect("assignment_detail", class_id=klass.pk, assignment_id=assignment.pk)
    status = 400 if form.is_bound else 200
    return _assignment_page(request, klass, row, form=form, status=status)


def _assignment_page(request, klass, row, *, form=None, override_form=None, status=200):
    assignment = row.assignment
    roster = selectors.class_roster(klass=klass)
    learners = [(entry.learner_id, entry.name) for entry in roster]
    context = {
        "klass": klass,
        "row": row,
        "assignment": assignment,
        "form": form or AssignmentRulesForm(initial=AssignmentRulesForm.initial_of(assignment)),
        "override_form": override_form or OverrideForm(learners=learners),
        "history": selectors.rule_changes([assignment])[0],
        "overrides": selectors.assignment_overrides(assignment=assignment),
    }
    return render(request, "quizzes/classes/assignment.html", context, status=status)


def _get_assignment_for(klass: Class, assignment_id: int) -> selectors.AssignmentRow:
    row = selectors.assignment_of_class(klass=klass, assignment_id=assignment_id)
    if row is None:
        raise Http404(_("This class has no such assignment."))
    return row


@login_required
@require_POST
def override_give(request: HttpRequest, class_id: int, assignment_id: int) -> HttpResponse:
    """Give a learner of the class extra time or attempts on the assignment."""
    klass = _get_class_for(request, class_id)
    row = _get_assignment_for(klass, assignment_id)
    learners = [(entry.learner_id, entry.name) for entry in selectors.class_roster(klass=klass)]
    form = OverrideForm(request.POST, learners=learners)
    if form.is_valid():
        try:
            services.override_give(
                assignment=row.assignment,
                learner_id=form.cleaned_data["learner"],
                extra_time=timedelta(minutes=form.cleaned_data["extra_time"]),
                extra_attempts=form.cleaned_data["extra_attempts"],
                by=request.user,
            )
        except services.NotInClass:  # Removed since the page showed them.
            form.add_error("learner", _("This learner is no longer in the class."))
        else:
            messages.success(request, _("The override is saved."))
            return redirect("assignment_detail", class_id=klass.pk, assignment_id=assignment_id)
    return _assignment_page(request, klass, row, override_form=form, status=400)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def assignment_delete(request: HttpRequest, class_id: int, assignment_id: int) -> HttpResponse:
    """Asks, then deletes an assignment nobody has started (POST). One with attempts can't
    be: its attempts are never lost (409, and the page says what to do instead)."""
    klass = _get_class_for(request, class_id)
    row = _get_assignment_for(klass, assignment_id)
    context = {"klass": klass, "row": row}
    if row.attempts:
        return render(request, "quizzes/classes/assignment_delete.html", context, status=409)
    if request.method == "POST":
        try:
            services.assignment_delete(assignment=row.assignment)
        except services.AssignmentHasAttempts:  # Started since the page showed it.
            return render(request, "quizzes/classes/assignment_delete.html", context, status=409)
        messages.success(
            request, _("The assignment “%(quiz)s” is deleted.") % {"quiz": row.quiz_title}
        )
        return redirect(klass)
    return render(request, "quizzes/classes/assignment_delete.html", context)


@login_required
@require_POST
def override_remove(
    request: HttpRequest, class_id: int, assignment_id: int, learner_id: int
) -> HttpResponse:
    """Take a learner's override away."""
    klass = _get_class_for(request, class_id)
    row = _get_assignment_for(klass, assignment_id)
    if not services.override_remove(assignment=row.assignment, learner_id=learner_id):
        raise Http404(_("This learner has no override here."))
    messages.success(request, _("The override is removed: the assignment's rules apply."))
    return redirect("assignment_detail", class_id=klass.pk, assignment_id=assignment_id)


@login_required
@require_POST
def class_joining(request: HttpRequest, class_id: int) -> HttpResponse:
    """Close joining, or open it again."""
    klass = _get_class_for(request, class_id)
    form = JoiningForm(request.POST)
    if not form.is_valid():
        return render(request, "400.html", status=400)
    services.class_joining_set(klass=klass, joining_open=form.joining_open)
    if klass.joining_open:
        messages.success(request, _("Joining is open: learners can join with the link or code."))
    else:
        messages.success(request, _("Joining is closed: the link and code no longer work."))
    return redirect(klass)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def class_remove(request: HttpRequest, class_id: int, learner_id: int) -> HttpResponse:
    """Asks, then takes a learner out of the class (POST); their attempts stay."""
    klass = _get_class_for(request, class_id)
    entry = selectors.roster_entry(klass=klass, learner_id=learner_id)
    if entry is None:
        raise Http404(_("This learner is not in this class."))
    if request.method == "POST":
        services.membership_remove(klass=klass, learner_id=learner_id)
        messages.success(
            request,
            _("%(name)s is no longer in this class; their attempts stay.") % {"name": entry.name},
        )
        return redirect(klass)
    return render(request, "quizzes/classes/remove.html", {"klass": klass, "entry": entry})


# Codes are short enough to guess, so each account, and each address (a classroom behind one
# is many learners), may type so many an hour, then gets the 429 page.
_codes_per_address = ratelimit("class-codes", limit="CLASS_CODES_PER_ADDRESS_PER_HOUR", per=3600)
_codes_per_account = ratelimit(
    "account-class-codes",
    limit="CLASS_CODES_PER_ACCOUNT_PER_HOUR",
    per=3600,
    by=lambda request: str(request.user.pk),
)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@_codes_per_address
@_codes_per_account
def join_by_code(request: HttpRequest) -> HttpResponse:
    """The code typed, then on to its class's join page."""
    form = JoinCodeForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            klass = selectors.class_by_code(code=form.cleaned_data["code"])
            if klass is not None:
                return redirect(klass.join_url())
            form.add_error("code", _("No class has this code: check it with your instructor."))
            status = 404
    return render(request, "quizzes/classes/join_code.html", {"form": form}, status=status)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def join_link(request: HttpRequest, token: str) -> HttpResponse:
    """What the learner joins and a button (GET); joining (POST), harmless a second time."""
    klass = selectors.class_by_token(token=token)
    if klass is None:
        raise Http404(_("There is no class at this address: ask your instructor for its link."))
    if request.method == "POST":
        try:
            _membership, joined = services.class_join(klass=klass, learner=request.user)
        except services.JoiningClosed:
            return _closed(request, klass)
        if joined:
            messages.success(request, _("You joined %(name)s.") % {"name": klass.name})
        else:
            messages.success(request, _("You are already in %(name)s.") % {"name": klass.name})
        return redirect("progress")
    member = selectors.is_member(klass=klass, user=request.user)
    if not member and not klass.joining_open:
        return _closed(request, klass)
    return render(request, "quizzes/classes/join.html", {"klass": klass, "member": member})


def _closed(request: HttpRequest, klass: Class) -> HttpResponse:
    return render(request, "quizzes/classes/closed.html", {"klass": klass}, status=403)
