from uuid import UUID

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.views import LoginView, RedirectURLMixin
from django.db.models import Count, Exists, OuterRef, Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.generic import FormView

from guides.models import GuidePath

from .forms import AnswerForm
from .models import Answer, AnswerChoice, Attempt, Choice, Question, Quiz
from .services import AlreadyAnswered, answer_record, attempt_start, attempts_claim


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    quizzes = Quiz.objects.published().annotate(question_count=Count("questions"))
    guides = GuidePath.objects.published().prefetch_related(
        Prefetch("quizzes", queryset=quizzes, to_attr="published_quizzes")
    )
    unlinked = quizzes.exclude(guide_paths__is_published=True)
    return render(request, "quizzes/home.html", {"guides": guides, "unlinked_quizzes": unlinked})


def _learner_attempts(request: HttpRequest):
    if request.user.is_authenticated:
        return Attempt.objects.filter(user=request.user)
    if not request.session.session_key:
        return Attempt.objects.none()
    return Attempt.objects.filter(user=None, session_key=request.session.session_key)


def _get_attempt_for(request: HttpRequest, public_id: UUID) -> Attempt:
    try:
        return _learner_attempts(request).select_related("quiz").get(public_id=public_id)
    except Attempt.DoesNotExist:
        raise Http404(_("There is no such attempt, or it is not yours.")) from None


def _get_published_quiz(request: HttpRequest, slug: str, queryset=Quiz.objects) -> Quiz:
    """The quiz if learners may see it; editors also preview unpublished ones."""
    if not request.user.has_perm("quizzes.change_quiz"):
        queryset = queryset.published()
    try:
        return queryset.get(slug=slug)
    except Quiz.DoesNotExist:
        raise Http404(_("There is no quiz at this address.")) from None


@require_safe
def quiz_detail(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _get_published_quiz(
        request,
        slug,
        Quiz.objects.prefetch_related(
            Prefetch("guide_paths", queryset=GuidePath.objects.published()), "questions"
        ),
    )
    unfinished = (
        _learner_attempts(request).filter(quiz=quiz, completed_at=None).order_by("-started_at")
    )
    resume = unfinished.annotate(answered=Count("answers")).first()
    return render(
        request,
        "quizzes/quiz_detail.html",
        {"quiz": quiz, "questions": quiz.questions.all(), "resume": resume},
    )


@require_POST
def quiz_start(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _get_published_quiz(request, slug)
    if not quiz.questions.exists():
        raise Http404(_("This quiz has no questions yet."))
    attempt = attempt_start(quiz=quiz, user=request.user, session=request.session)
    return redirect(attempt.question_url(1))


def _steps(attempt: Attempt) -> list[tuple[int, bool]]:
    """(question id, answered?) for every question of the attempt's quiz, in order."""
    answered = Answer.objects.filter(attempt=attempt, question=OuterRef("pk"))
    return list(
        Question.objects.filter(quiz_id=attempt.quiz_id)
        .annotate(answered=Exists(answered))
        .values_list("pk", "answered")
    )


def _first_open(steps: list[tuple[int, bool]]) -> int | None:
    return next((n for n, (_pk, answered) in enumerate(steps, 1) if not answered), None)


def _ordered_choices(attempt: Attempt, question: Question) -> list[Choice]:
    choices = list(question.choices.all())
    if attempt.quiz.shuffle_choices:
        choices.sort(key=attempt.choice_order_key)
    return choices


@require_http_methods(["GET", "HEAD", "POST"])
def question(request: HttpRequest, public_id: UUID, number: int) -> HttpResponse:
    attempt = _get_attempt_for(request, public_id)
    steps = _steps(attempt)
    if not 1 <= number <= len(steps):
        raise Http404(_("This quiz has no question %(number)s.") % {"number": number})
    first_open = _first_open(steps)
    if first_open is not None and number > first_open:
        if request.method == "POST":
            return render(
                request,
                "quizzes/out_of_order.html",
                {"attempt": attempt, "first_open": first_open},
                status=409,
            )
        return redirect(attempt.question_url(first_open))

    question = Question.objects.prefetch_related("choices").get(pk=steps[number - 1][0])
    choices = _ordered_choices(attempt, question)
    answered = steps[number - 1][1]
    form = AnswerForm(choices=choices)
    status = 200
    notice = None
    if request.method == "POST":
        if answered:
            status, notice = 409, _("You have already answered this question.")
        else:
            form = AnswerForm(request.POST, choices=choices)
            if form.is_valid():
                try:
                    answer_record(
                        attempt=attempt, question=question, choice=form.cleaned_data["choice"]
                    )
                except AlreadyAnswered:
                    status, notice = 409, _("You have already answered this question.")
                else:
                    return redirect(attempt.question_url(number) + "#feedback")
                answered = True
            else:
                status = 400

    picks = []
    if answered:
        picks = list(
            AnswerChoice.objects.filter(
                answer__attempt=attempt, answer__question=question
            ).values_list("choice_id", "answer__is_correct")
        )
    picked = {choice_id for choice_id, _correct in picks}
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "question": question,
        "choices": choices,
        "form": form,
        "number": number,
        "total": len(steps),
        "answered_count": sum(1 for _pk, done in steps if done),
        "answered": answered,
        "picked": [choice for choice in choices if choice.pk in picked],
        "is_correct": bool(picks) and picks[0][1],
        "correct_choices": [choice for choice in choices if choice.is_correct],
        "next_url": attempt.question_url(number + 1)
        if number < len(steps)
        else attempt.get_absolute_url(),
        "notice": notice,
    }
    return render(request, "quizzes/question.html", context, status=status)


@require_safe
def results(request: HttpRequest, public_id: UUID) -> HttpResponse:
    attempt = _get_attempt_for(request, public_id)
    if not attempt.is_finished:
        first_open = _first_open(_steps(attempt)) or 1
        return redirect(attempt.question_url(first_open))
    questions = Question.objects.filter(quiz_id=attempt.quiz_id).prefetch_related("choices")
    picks = AnswerChoice.objects.filter(answer__attempt=attempt).values_list(
        "answer__question_id", "choice_id", "answer__is_correct"
    )
    picked: dict[int, set[int]] = {}
    graded: dict[int, bool] = {}
    for question_id, choice_id, is_correct in picks:
        picked.setdefault(question_id, set()).add(choice_id)
        graded[question_id] = is_correct
    review = []
    for question in questions:
        choices = _ordered_choices(attempt, question)
        chosen = picked.get(question.pk, set())
        review.append(
            {
                "question": question,
                "choices": choices,
                "picked": [choice for choice in choices if choice.pk in chosen],
                "correct_choices": [choice for choice in choices if choice.is_correct],
                "is_correct": graded.get(question.pk, False),
            }
        )
    guides = attempt.quiz.guide_paths.published()
    return render(
        request,
        "quizzes/results.html",
        {"attempt": attempt, "quiz": attempt.quiz, "review": review, "guides": guides},
    )


class SignInView(LoginView):
    """Django's sign-in, which also hands the learner the attempts made before signing in."""

    def form_valid(self, form):
        session_key = self.request.session.session_key
        response = super().form_valid(form)
        _claim(self.request, session_key)
        return response


class SignUpView(RedirectURLMixin, FormView):
    form_class = UserCreationForm
    template_name = "registration/signup.html"
    next_page = reverse_lazy("home")

    def form_valid(self, form):
        session_key = self.request.session.session_key
        user = form.save()
        login(self.request, user)
        _claim(self.request, session_key)
        return redirect(self.get_success_url())


def _claim(request: HttpRequest, session_key: str | None) -> None:
    if attempts_claim(session_key=session_key, user=request.user):
        messages.success(request, _("Your attempts so far are now saved to your account."))
