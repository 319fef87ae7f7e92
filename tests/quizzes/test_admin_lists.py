import re

from tests.factories import answer, choice_of, make_guide, make_quiz, start


def rows(html: str) -> list[str]:
    return re.findall(r"<tr>.*?</tr>", html, flags=re.S)[1:]


def test_quiz_list_shows_questions_translation_status_and_attempts(editor_client, client, guide):
    quiz = make_quiz(questions=3, guide=guide)
    make_quiz(slug="english-only", questions=2, french=False, title_en="English only quiz")
    start(client, quiz)
    start(client, quiz, start_over=True)
    html = editor_client.get("/admin/quizzes/quiz/").content.decode()
    dp, english = (row for row in rows(html) if "dp-quiz" in row or "english-only" in row)
    assert 'question_count">3<' in dp and 'attempt_count">2<' in dp
    # Only the French guide section links are missing, one per question.
    assert 'missing_fr">3 missing<' in dp
    # Title and description; prompt, explanation, guide link of 2 questions; 4 choices'
    # text and one feedback each.
    assert 'missing_fr">18 missing<' in english and 'attempt_count">0<' in english


def test_quiz_list_queries_stay_constant(editor_client, django_assert_max_num_queries, guide):
    make_quiz(slug="one", questions=1, guide=guide)
    with django_assert_max_num_queries(12) as few:
        editor_client.get("/admin/quizzes/quiz/")
    for n in range(6):
        make_quiz(slug=f"more-{n}", questions=5, french=n % 2 == 0, guide=guide)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = editor_client.get("/admin/quizzes/quiz/")
    assert response.status_code == 200


def test_quiz_list_filters_and_search(editor_client, guide):
    other = make_guide(slug="gradient-accumulation", title_en="Gradient accumulation")
    complete = make_quiz(slug="dp-quiz", guide=guide, level="intermediate")
    complete.questions.update(guide_url_fr="https://example.org/fr/guide/")
    make_quiz(
        slug="ga-quiz",
        guide=other,
        level="beginner",
        french=False,
        published=False,
        title_en="Accumulation",
    )

    def slugs(query: str) -> set[str]:
        html = editor_client.get(f"/admin/quizzes/quiz/?{query}").content.decode()
        return {slug for slug in ("dp-quiz", "ga-quiz") if f">{slug}<" in html}

    assert slugs(f"guide_paths__id__exact={other.pk}") == {"ga-quiz"}
    assert slugs("level__exact=intermediate") == {"dp-quiz"}
    assert slugs("is_published__exact=0") == {"ga-quiz"}
    assert slugs("missing=fr") == {"ga-quiz"}
    assert slugs("q=Accumulation") == {"ga-quiz"}


def test_quiz_page_lists_the_missing_french_fields(editor_client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    quiz.questions.update(guide_url_fr="https://example.org/fr/guide/")
    question = quiz.questions.get(position=2)
    question.explanation_fr = ""
    question.save()
    question.choices.filter(position=2).update(feedback_fr="")
    html = editor_client.get(f"/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    assert "French: 2 fields missing" in html
    assert "<li>question 2: explanation</li>" in html
    assert "<li>question 2, choice 2: feedback</li>" in html
    assert quiz.missing_translations("fr") == [
        "question 2: explanation",
        "question 2, choice 2: feedback",
    ]


def test_question_list_counts_choices_and_answers(editor_client, client, guide):
    quiz = make_quiz(questions=2, guide=guide)
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    html = editor_client.get(f"/admin/quizzes/question/?quiz__id__exact={quiz.pk}").content.decode()
    first = next(row for row in rows(html) if "Question 1 prompt" in row)
    assert re.search(r'field-choice_count">4<', first) and re.search(
        r'field-answer_count">1<', first
    )


def test_attempts_are_listed_read_only_for_instructors(instructor_client, client, quiz):
    attempt = start(client, quiz)
    response = instructor_client.get("/admin/quizzes/attempt/")
    assert response.status_code == 200
    assert str(attempt.public_id) in response.content.decode()
    page = instructor_client.get(f"/admin/quizzes/attempt/{attempt.pk}/change/").content.decode()
    assert 'name="_save"' not in page
    assert instructor_client.get("/admin/quizzes/answer/").status_code == 200
