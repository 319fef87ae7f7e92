from tests.factories import make_guide, make_quiz


def test_home_lists_published_guide_paths_with_their_published_quizzes(client, guide):
    make_quiz(slug="live", guide=guide, title_en="Live quiz")
    make_quiz(slug="draft", guide=guide, published=False, title_en="Draft quiz")
    make_guide(slug="hidden", published=False, title_en="Hidden guide")
    html = client.get("/en/").content.decode()
    assert "Data parallelism" in html
    assert 'href="/en/quizzes/live/"' in html
    assert "Draft quiz" not in html
    assert "Hidden guide" not in html
    assert "8 questions" in html


def test_home_lists_quizzes_without_a_guide_path_too(client, db):
    make_quiz(slug="loose", title_en="Loose quiz")
    html = client.get("/en/").content.decode()
    assert "More quizzes" in html and "Loose quiz" in html


def test_guide_page_lists_its_quizzes(client, guide):
    make_quiz(slug="live", guide=guide, title_en="Live quiz")
    response = client.get("/fr/guides/data-parallelism/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Parallélisme des données</h1>" in html
    assert 'href="/fr/quizzes/live/"' in html


def test_unpublished_or_unknown_guide_path_is_404(client, db):
    make_guide(slug="hidden", published=False)
    for slug in ("hidden", "nope"):
        response = client.get(f"/en/guides/{slug}/")
        assert response.status_code == 404
        assert "There is no guide path at this address." in response.content.decode()


def test_guide_page_query_count_does_not_grow(client, guide, django_assert_max_num_queries):
    for n in range(5):
        make_quiz(slug=f"q{n}", guide=guide, questions=3)
    with django_assert_max_num_queries(3):
        assert client.get("/en/guides/data-parallelism/").status_code == 200
