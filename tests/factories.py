"""Test data made in code: `make_quiz(questions=8)`, a learner's `start` and `answer`, and the
admin's form data."""

from datetime import datetime

from django.contrib.auth.models import Group, User
from django.urls import reverse
from django.utils import translation

from guides.models import GuidePath
from quizzes.kinds import calculated
from quizzes.models import Answer, Assignment, Attempt, Choice, Class, Question, Quiz
from quizzes.snapshots import QuizContent, quiz_content


def make_guide(*, slug: str = "data-parallelism", published: bool = True, **fields) -> GuidePath:
    defaults = {
        "title_en": "Data parallelism",
        "title_fr": "Parallélisme des données",
        "summary_en": "Train one model on many GPUs.",
        "summary_fr": "Entraîner un modèle sur plusieurs GPU.",
        "is_published": published,
    }
    return GuidePath.objects.create(slug=slug, **(defaults | fields))


def make_quiz(
    *,
    slug: str = "dp-quiz",
    questions: int = 8,
    choices: int = 4,
    published: bool = True,
    french: bool = True,
    guide: GuidePath | None = None,
    **fields,
) -> Quiz:
    """A quiz whose question n has choice 1 correct; French texts unless french=False."""
    defaults = {
        "title_en": "Data parallelism quiz",
        "title_fr": "Quiz sur le parallélisme des données" if french else "",
        "description_en": "Replicas, gradients and batches.",
        "description_fr": "Répliques, gradients et lots." if french else "",
        "level": "intermediate",
        "is_published": published,
        "pass_mark": 70,
    }
    quiz = Quiz.objects.create(slug=slug, **(defaults | fields))
    if guide is not None:
        quiz.guide_paths.add(guide)
    for n in range(1, questions + 1):
        question = quiz.questions.create(
            position=n,
            prompt_en=f"Question {n} prompt",
            prompt_fr=f"Énoncé de la question {n}" if french else "",
            explanation_en=f"Explanation {n} in English.",
            explanation_fr=f"Explication {n} en français." if french else "",
            guide_url_en=f"https://example.org/guide/#q{n}",
        )
        Choice.objects.bulk_create(
            Choice(
                question=question,
                position=c,
                text_en=f"Q{n} choice {c}",
                text_fr=f"Q{n} choix {c}" if french else "",
                is_correct=c == 1,
                feedback_en=f"Q{n} feedback {c}" if c == 2 else "",
                feedback_fr=f"Q{n} commentaire {c}" if c == 2 and french else "",
            )
            for c in range(1, choices + 1)
        )
    return quiz


def choice_of(quiz: Quiz, number: int, *, correct: bool) -> Choice:
    """The first correct (or first wrong) choice of question `number` (1-based)."""
    question = quiz.questions.order_by("position")[number - 1]
    return question.choices.filter(is_correct=correct).order_by("position").first()


def start(client, quiz: Quiz, lang: str = "en", *, start_over: bool = False) -> Attempt:
    """Start the quiz as a learner would; `start_over` leaves the attempt in progress."""
    with translation.override(lang):
        url = reverse("quiz_start", kwargs={"slug": quiz.slug})
    response = client.post(url, {"start_over": "1"} if start_over else {})
    assert response.status_code == 302, response
    return Attempt.objects.order_by("-pk").first()


def question_url(attempt: Attempt, number: int, lang: str = "en") -> str:
    with translation.override(lang):
        return attempt.question_url(number)


def results_url(attempt: Attempt, lang: str = "en") -> str:
    with translation.override(lang):
        return attempt.get_absolute_url()


def answer(client, attempt: Attempt, number: int, choice: Choice, lang: str = "en"):
    return client.post(question_url(attempt, number, lang), {"choice": choice.pk})


def content_of(quiz: Quiz) -> QuizContent:
    """The quiz's content as the learner pages keep it, read now."""
    quiz.refresh_from_db(fields=["updated_at"])
    return quiz_content(quiz_id=quiz.pk, updated_at=quiz.updated_at)


def make_staff(username: str, group: str):
    """A staff member in one of the groups the roles migration creates."""
    user = User.objects.create_user(username, password="not-used", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


def inline_data(prefix: str, rows: list[dict], *, initial: int = 0) -> dict:
    """The POST data of an admin inline: management form and rows, `initial` of them saved."""
    data = {
        f"{prefix}-TOTAL_FORMS": str(len(rows)),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    for number, row in enumerate(rows):
        data |= {f"{prefix}-{number}-{key}": value for key, value in row.items()}
    return data


def make_multiple(quiz: Quiz, number: int) -> Question:
    """Turn question `number` of a `make_quiz` quiz into a multiple-choice one whose
    choices 1 and 2 are correct."""
    question = quiz.questions.get(position=number)
    question.kind = "multiple"
    question.save()
    question.choices.filter(position=2).update(is_correct=True)
    return question


def make_numerical(quiz: Quiz, number: int) -> Question:
    """Turn question `number` of a `make_quiz` quiz into a numerical one: 1024 is right
    (choice 1, "1 024" in French), 32 a known mistake with feedback (choice 2), the
    others go."""
    question = quiz.questions.get(position=number)
    question.kind = "numerical"
    question.save()
    question.choices.filter(position__gt=2).delete()
    question.choices.filter(position=1).update(text_en="1024", text_fr="1 024")
    question.choices.filter(position=2).update(
        text_en="32",
        text_fr="32",
        feedback_en="Only one worker's micro-batch.",
        feedback_fr="Le micro-lot d’un seul nœud.",
    )
    return question


def make_short_answer(quiz: Quiz, number: int) -> Question:
    """Turn question `number` of a `make_quiz` quiz into a short-answer one: "all-reduce" is
    right ("réduction globale" in French), anything with "broadcast" ("diffusion") a known
    mistake with feedback, the others go."""
    question = quiz.questions.get(position=number)
    question.kind = "short_answer"
    question.save()
    question.choices.filter(position__gt=2).delete()
    question.choices.filter(position=1).update(text_en="all-reduce", text_fr="réduction globale")
    question.choices.filter(position=2).update(
        text_en="*broadcast*",
        text_fr="*diffusion*",
        is_correct=False,
        feedback_en="A broadcast sends, it does not sum.",
        feedback_fr="Une diffusion envoie, elle ne somme pas.",
    )
    return question


CALCULATED_VARIABLES = [
    {"name": "workers", "min": "2", "max": "16", "step": "2"},
    {"name": "local_batch", "values": ["16", "32", "64"]},
    {"name": "steps", "min": "1", "max": "8"},
]


def make_calculated(quiz: Quiz, number: int) -> Question:
    """Turn question `number` of a `make_quiz` quiz into a calculated one: the global batch
    of {workers} workers, a local batch of {local_batch} and {steps} accumulation steps
    (choice 1, right); workers * local_batch a known mistake with feedback (choice 2)."""
    question = quiz.questions.get(position=number)
    question.kind = "calculated"
    question.variables = CALCULATED_VARIABLES
    question.prompt_en = (
        "With {workers} workers, a local batch of {local_batch} and {steps} accumulation "
        "steps, how many samples does one optimizer step see?"
    )
    question.prompt_fr = (
        "Avec {workers} nœuds, un lot local de {local_batch} et {steps} étapes "
        "d’accumulation, combien d’exemples voit un pas de l’optimiseur ?"
    )
    question.explanation_en = "{workers} × {local_batch} × {steps}."
    question.explanation_fr = "{workers} × {local_batch} × {steps}."
    question.save()
    question.choices.filter(position__gt=2).delete()
    question.choices.filter(position=1).update(
        text_en="workers * local_batch * steps", text_fr="", is_correct=True
    )
    question.choices.filter(position=2).update(
        text_en="workers * local_batch",
        text_fr="",
        is_correct=False,
        feedback_en="The {steps} accumulation steps are left out.",
        feedback_fr="Les {steps} étapes d’accumulation sont oubliées.",
    )
    return question


def variant_of(attempt: Attempt, question: Question) -> dict:
    """The values `attempt` draws for calculated `question`, and its right answer (its right
    formula's value)."""
    variables, _problems = calculated.parse_variables(question.variables)
    values = calculated.draw(variables, calculated.seed_of(attempt.public_id, question.pk))
    formula = question.choices.get(is_correct=True).text_en
    return {**values, "answer": calculated.evaluate(formula, values)}


def answer_number(client, attempt: Attempt, number: int, text: str, lang: str = "en"):
    """Type `text` as the answer to numerical question `number`."""
    return client.post(question_url(attempt, number, lang), {"choice": text})


def answer_picks(client, attempt: Attempt, number: int, choices: list[Choice], lang: str = "en"):
    """Post several picks for question `number`, as ticked checkboxes do."""
    return client.post(question_url(attempt, number, lang), {"choice": [c.pk for c in choices]})


# The admin's forms, as an editor posts them.


def quiz_form(guide, **fields) -> dict:
    return (
        {
            "title_en": "Gradient accumulation quiz",
            "title_fr": "Quiz sur l'accumulation de gradients",
            "slug": "gradient-accumulation-quiz",
            "description_en": "Bigger batches on small GPUs.",
            "description_fr": "De plus grands lots sur de petits GPU.",
            "level": "beginner",
            "guide_paths": [guide.pk],
            "pass_mark": "60",
        }
        | inline_data("embed_origins", [])
        | fields
    )


def question_form(question: Question, choices: list[dict], *, initial: int = 0, **fields) -> dict:
    return (
        {
            "quiz": question.quiz_id,
            "position": question.position,
            "kind": "single",
            "prompt_en": question.prompt_en,
            "prompt_fr": question.prompt_fr or "",
            "explanation_en": "Gradients add up over microbatches.",
            "explanation_fr": "Les gradients s'additionnent sur les micro-lots.",
            "guide_url_en": "https://example.org/guide/#accumulate",
            "guide_url_fr": "",
        }
        | fields
        | inline_data("choices", choices, initial=initial)
        | inline_data("units", [])
    )


def choice_row(position: int, en: str, fr: str, *, correct: bool = False, **extra) -> dict:
    row = {"position": position, "text_en": en, "text_fr": fr, "feedback_en": "", "feedback_fr": ""}
    if correct:
        row["is_correct"] = "on"
    return row | extra


def post_question(editor_client, question, **fields):
    choices = [
        choice_row(1, "Right", "Juste", correct=True),
        choice_row(2, "Wrong", "Faux"),
    ]
    rows = [
        row | {"id": choice.pk, "question": question.pk}
        for row, choice in zip(choices, question.choices.all()[:2], strict=True)
    ]
    data = question_form(question, rows, initial=2, **fields)
    return editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)


# The progress page's queries (tests/learning/test_query_counts.py and test_progress.py):
# guide paths, their quizzes, the other quizzes, the learner's attempts.
PROGRESS_PAGE = 4


def make_ordering(quiz: Quiz, number: int, *, grading: str = "all") -> Question:
    """Turn question `number` of a `make_quiz` quiz into an ordering one: its four choices,
    in their positions, are the right order."""
    question = quiz.questions.get(position=number)
    question.kind = "ordering"
    question.grading = grading
    question.save()
    question.choices.update(is_correct=False)
    return question


def answer_order(client, attempt: Attempt, number: int, choices: list[Choice], lang: str = "en"):
    """Post `choices` as the learner's order for ordering question `number`, as its
    position boxes do."""
    posted = [f"{choice.pk}:{place}" for place, choice in enumerate(choices, 1)]
    return client.post(question_url(attempt, number, lang), {"choice": posted})


# The collectives of a matching question and what each does, in English and French.
COLLECTIVES = [
    ("All-reduce", "Every worker gets the sum", "Chaque worker reçoit la somme"),
    ("Broadcast", "One worker's tensor goes to all", "Le tenseur d’un worker va à tous"),
    ("All-gather", "Every worker gets every shard", "Chaque worker reçoit chaque morceau"),
    ("", "Each worker keeps its own gradients", "Chaque worker garde ses gradients"),
]


def make_matching(quiz: Quiz, number: int) -> Question:
    """Turn question `number` of a `make_quiz` quiz into a matching one: its first three
    choices the collectives (in both languages) with what each does, its fourth a
    distractor (a right item with no left item)."""
    question = quiz.questions.get(position=number)
    question.kind = "matching"
    question.save()
    for choice, (left, right_en, right_fr) in zip(
        question.choices.order_by("position"), COLLECTIVES, strict=True
    ):
        choice.text_en = choice.text_fr = left
        choice.match_en, choice.match_fr = right_en, right_fr
        choice.is_correct = False
        choice.save()
    return question


def answer_matches(client, attempt: Attempt, number: int, pairs: list, lang: str = "en"):
    """Post `pairs` (left choice, right choice) as the learner's picks for matching question
    `number`, as its select boxes do."""
    posted = [f"{left.pk}:{right.pk}" for left, right in pairs]
    return client.post(question_url(attempt, number, lang), {"choice": posted})


GAPS_PROMPT_EN = (
    "With 8 workers and a local batch of 32, one optimizer step sees [[1]] samples. "
    "The workers sum their gradients with an [[2]], which PyTorch's [[3]] runs for them."
)
GAPS_PROMPT_FR = (
    "Avec 8 nœuds et un lot local de 32, un pas de l’optimiseur voit [[1]] exemples. "
    "Les nœuds somment leurs gradients par un [[2]], que le [[3]] de PyTorch fait pour eux."
)


def make_gaps(quiz: Quiz, number: int) -> Question:
    """Turn question `number` of a `make_quiz` quiz into a gaps one of three gaps: a number
    (256 right, 32 a known mistake with feedback), a choice (all-reduce right, broadcast and
    all-gather wrong) and a short answer (DDP or DistributedDataParallel, right)."""
    question = quiz.questions.get(position=number)
    question.kind = "gaps"
    question.gaps = ["numerical", "single", "short_answer"]
    question.prompt_en, question.prompt_fr = GAPS_PROMPT_EN, GAPS_PROMPT_FR
    question.save()
    question.choices.all().delete()
    rows = [
        (1, "256", "256", True, "", ""),
        (1, "32", "32", False, "That is one worker's batch.", "C’est le lot d’un seul nœud."),
        (2, "all-reduce", "all-reduce", True, "", ""),
        (2, "broadcast", "diffusion", False, "A broadcast sends, it does not sum.", ""),
        (2, "all-gather", "all-gather", False, "", ""),
        (3, "DDP", "DDP", True, "", ""),
        (3, "DistributedDataParallel", "DistributedDataParallel", True, "", ""),
    ]
    for position, (gap, en, fr, correct, feedback_en, feedback_fr) in enumerate(rows, 1):
        question.choices.create(
            position=position,
            gap=gap,
            text_en=en,
            text_fr=fr,
            is_correct=correct,
            feedback_en=feedback_en,
            feedback_fr=feedback_fr,
        )
    return question


def answer_gaps(client, attempt: Attempt, number: int, values: list, lang: str = "en"):
    """Post `values` (a choice's pk or a text each) for the gaps of question `number`, in
    order, as its inputs do."""
    posted = [value.pk if isinstance(value, Choice) else value for value in values]
    return client.post(question_url(attempt, number, lang), {"choice": posted})


def make_assignment(klass: Class, quiz: Quiz, **rules) -> Assignment:
    """An assignment of the quiz to the class; `rules` as Assignment's fields."""
    return Assignment.objects.create(klass=klass, quiz=quiz, **rules)


def take_assignment(assignment: Assignment, learner: User, **taken) -> Attempt:
    """A learner's next attempt at the assignment (see `take_attempt`)."""
    number = Attempt.objects.filter(assignment=assignment, user=learner).count() + 1
    return take_attempt(assignment.quiz, learner, assignment=assignment, number=number, **taken)


def take_attempt(
    quiz: Quiz,
    learner: User,
    *,
    assignment: Assignment | None = None,
    number: int | None = None,
    is_first: bool = False,
    right: int,
    answered: int | None = None,
    started: datetime,
    finished: datetime | None = None,
    deadline: datetime | None = None,
) -> Attempt:
    """A learner's attempt at the quiz, as the ORM keeps it: `answered` questions
    (every one when finished, unless said) of which the first `right` are right, finished at
    `finished` (None: open), with the score the learner pages would have kept."""
    questions = list(quiz.questions.order_by("position"))
    answered = len(questions) if answered is None else answered
    attempt = Attempt.objects.create(
        is_first=is_first,
        quiz=quiz,
        user=learner,
        language="en",
        assignment=assignment,
        number=number,
        deadline=deadline,
        completed_at=finished,
        score=right if finished else None,
        max_score=len(questions) if finished else None,
    )
    Attempt.objects.filter(pk=attempt.pk).update(started_at=started)
    for position, question in enumerate(questions[:answered], 1):
        is_right = position <= right
        choice = question.choices.filter(is_correct=is_right).order_by("position").first()
        answer = Answer.objects.create(
            attempt=attempt,
            question=question,
            choice=choice,
            credit=int(is_right),
            is_correct=is_right,
        )
        answer.picks.create(choice=choice)
    attempt.refresh_from_db()
    return attempt
