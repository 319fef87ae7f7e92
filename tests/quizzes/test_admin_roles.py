from django.contrib.auth.models import User
from django.core.management import call_command

from quizzes.learning.services import answers_regrade
from quizzes.models import Answer, Attempt, Choice, Question, Quiz
from tests.factories import answer, choice_of, make_quiz, start


def test_editor_manages_content_but_not_users(editor_client, quiz):
    for url in [
        "/admin/quizzes/quiz/",
        "/admin/quizzes/quiz/add/",
        f"/admin/quizzes/question/{quiz.questions.first().pk}/change/",
        "/admin/guides/guidepath/add/",
    ]:
        assert editor_client.get(url).status_code == 200, url
    for url in ["/admin/auth/user/", "/admin/auth/group/", "/admin/quizzes/attempt/"]:
        assert editor_client.get(url).status_code == 403, url


def test_instructor_reads_attempts_but_changes_no_content(instructor_client, quiz):
    user = User.objects.get(username="instructor")
    assert user.has_perm("quizzes.view_report")
    assert instructor_client.get("/admin/quizzes/quiz/").status_code == 200
    assert instructor_client.get("/admin/quizzes/quiz/add/").status_code == 403
    assert instructor_client.get("/admin/quizzes/quiz/import/").status_code == 403
    response = instructor_client.post(
        f"/admin/quizzes/quiz/{quiz.pk}/change/", {"title_en": "Hijacked", "slug": "x"}
    )
    assert response.status_code == 403
    assert instructor_client.get("/admin/auth/user/").status_code == 403
    assert instructor_client.get("/admin/guides/guidepath/add/").status_code == 403
    quiz.refresh_from_db()
    assert quiz.title_en == "Data parallelism quiz"


def test_createdemousers_prints_each_password_once(capsys, db):
    call_command("createdemousers")
    out = capsys.readouterr().out
    passwords = dict(
        (line.split()[0], line.rsplit(" ", 1)[1])
        for line in out.splitlines()
        if "password " in line
    )
    assert set(passwords) == {"editor", "instructor"}
    for username, password in passwords.items():
        user = User.objects.get(username=username)
        assert user.is_staff and not user.is_superuser and user.check_password(password)
    assert User.objects.get(username="editor").groups.get().name == "Editors"
    assert User.objects.get(username="instructor").has_perm("quizzes.view_report")


def test_editor_previews_an_unpublished_quiz_learners_get_404(editor_client, client, guide):
    quiz = make_quiz(published=False, guide=guide)
    learner = client.__class__()
    assert learner.get("/en/quizzes/dp-quiz/").status_code == 404
    assert learner.post("/en/quizzes/dp-quiz/start/").status_code == 404
    page = editor_client.get("/fr/quizzes/dp-quiz/").content.decode()
    assert "Aperçu, non publié" in page
    attempt = start(editor_client, quiz)
    assert "Preview, not published" in editor_client.get(attempt.question_url(1)).content.decode()
    quiz.is_published = True
    quiz.save()
    assert (
        "Preview, not published" not in editor_client.get("/en/quizzes/dp-quiz/").content.decode()
    )


def test_answered_question_cant_be_deleted_and_unpublishing_is_offered(editor_client, client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    question = quiz.questions.get(position=1)
    url = f"/admin/quizzes/question/{question.pk}/delete/"
    for response in (editor_client.get(url), editor_client.post(url, {"post": "yes"})):
        assert response.status_code == 409
        html = response.content.decode()
        assert "can't be deleted: learners have 1 recorded answer" in html
        assert f"/admin/quizzes/quiz/{quiz.pk}/unpublish/" in html
    assert Question.objects.filter(pk=question.pk).exists()
    response = editor_client.post(f"/admin/quizzes/quiz/{quiz.pk}/unpublish/")
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert not quiz.is_published
    assert editor_client.get(f"/admin/quizzes/quiz/{quiz.pk}/delete/").status_code == 409

    unanswered = quiz.questions.get(position=2)
    editor_client.post(f"/admin/quizzes/question/{unanswered.pk}/delete/", {"post": "yes"})
    assert not Question.objects.filter(pk=unanswered.pk).exists()


def test_picked_choice_cant_be_deleted_from_its_question(editor_client, client, quiz):
    attempt = start(client, quiz)
    picked = choice_of(quiz, 1, correct=False)
    answer(client, attempt, 1, picked)
    question = picked.question
    data = {
        "quiz": quiz.pk,
        "position": 1,
        "kind": "single",
        "prompt_en": question.prompt_en,
    }
    choices = list(question.choices.all())
    data |= {
        "choices-TOTAL_FORMS": len(choices),
        "choices-INITIAL_FORMS": len(choices),
    }
    for n, choice in enumerate(choices):
        data |= {
            f"choices-{n}-id": choice.pk,
            f"choices-{n}-question": question.pk,
            f"choices-{n}-position": choice.position,
            f"choices-{n}-text_en": choice.text_en,
        }
        if choice.is_correct:
            data[f"choices-{n}-is_correct"] = "on"
        if choice == picked:
            data[f"choices-{n}-DELETE"] = "on"
    response = editor_client.post(f"/admin/quizzes/question/{question.pk}/change/", data)
    assert response.status_code == 200
    assert "would require deleting the following protected related objects" in (
        response.content.decode()
    )
    assert Choice.objects.filter(pk=picked.pk).exists()


def test_changing_the_correct_choice_keeps_grades_until_regraded(editor_client, client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=False))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True))
    attempt.refresh_from_db()
    assert attempt.score == 1
    question = quiz.questions.get(position=1)
    choices = list(question.choices.all())
    data = {"quiz": quiz.pk, "position": 1, "kind": "single", "prompt_en": question.prompt_en}
    data |= {"choices-TOTAL_FORMS": len(choices), "choices-INITIAL_FORMS": len(choices)}
    data |= {"units-TOTAL_FORMS": 0, "units-INITIAL_FORMS": 0}
    for n, choice in enumerate(choices):
        data |= {
            f"choices-{n}-id": choice.pk,
            f"choices-{n}-question": question.pk,
            f"choices-{n}-position": choice.position,
            f"choices-{n}-text_en": choice.text_en,
        }
        if choice.position == 2:  # the choice the learner picked becomes the right one
            data[f"choices-{n}-is_correct"] = "on"
    response = editor_client.post(
        f"/admin/quizzes/question/{question.pk}/change/", data, follow=True
    )
    assert "This question has 1 recorded answer. It keeps the grade it was given" in (
        response.content.decode()
    )
    assert Answer.objects.filter(is_correct=True).count() == 1
    attempt.refresh_from_db()
    assert attempt.score == 1

    response = editor_client.post(
        "/admin/quizzes/quiz/",
        {"action": "regrade", "_selected_action": [quiz.pk]},
        follow=True,
    )
    message = "Answers regraded. Answers changed: 1. Attempt scores changed: 1."
    assert message in response.content.decode()
    attempt.refresh_from_db()
    assert attempt.score == 2
    assert answers_regrade(quiz=quiz).answers == 0


def test_regrade_only_touches_the_questions_given(client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True))
    for question in quiz.questions.all():
        question.choices.update(is_correct=False)
        question.choices.filter(position=2).update(is_correct=True)
    result = answers_regrade(questions=Question.objects.filter(quiz=quiz, position=1))
    assert (result.answers, result.attempts) == (1, 1)
    assert Attempt.objects.get().score == 1
    assert list(
        Answer.objects.order_by("question__position").values_list("is_correct", flat=True)
    ) == [False, True]
    assert Quiz.objects.count() == 1
