import re

from guides.models import GuidePath
from tests.factories import make_guide, make_quiz


def test_editor_creates_a_guide_path_in_both_languages(editor_client, db):
    response = editor_client.post(
        "/admin/guides/guidepath/add/",
        {
            "title_en": "Pipeline parallelism",
            "title_fr": "Parallélisme par pipeline",
            "slug": "pipeline-parallelism",
            "summary_en": "Split the layers across GPUs.",
            "summary_fr": "Répartir les couches entre les GPU.",
            "url": "https://example.org/guides/pipeline/",
            "position": "3",
        },
    )
    assert response.status_code == 302
    guide = GuidePath.objects.get(slug="pipeline-parallelism")
    assert (guide.title_fr, guide.summary_fr, guide.is_published) == (
        "Parallélisme par pipeline",
        "Répartir les couches entre les GPU.",
        False,
    )
    page = editor_client.get(f"/admin/guides/guidepath/{guide.pk}/change/").content.decode()
    assert re.search(r'<div class="form-row[^"]* field-title_en field-title_fr"', page)
    assert "/admin/r/" in page  # View on site


def test_guide_path_list_counts_quizzes_and_filters_by_published(editor_client, db):
    guide = make_guide()
    make_guide(slug="hidden", published=False, title_en="Hidden guide")
    make_quiz(guide=guide, questions=1)
    make_quiz(slug="second", guide=guide, questions=1)
    page = editor_client.get("/admin/guides/guidepath/").content.decode()
    assert 'field-quiz_count">2<' in page
    page = editor_client.get("/admin/guides/guidepath/?is_published__exact=0").content.decode()
    assert "Hidden guide" in page and "Data parallelism" not in page


def test_duplicate_guide_slug_is_refused(editor_client, db):
    make_guide()
    response = editor_client.post(
        "/admin/guides/guidepath/add/",
        {"title_en": "Again", "slug": "data-parallelism", "position": "1"},
    )
    assert response.status_code == 200
    assert "Guide path with this Slug already exists." in response.content.decode()


def test_a_guide_paths_summary_gets_the_checks_quiz_texts_get(editor_client, db):
    data = {
        "title_en": "Broken maths",
        "slug": "broken-maths",
        "summary_en": r"It costs $\frac{1}{$ a step.",
        "url": "https://example.org/guides/broken/",
        "position": "1",
    }
    response = editor_client.post("/admin/guides/guidepath/add/", data)
    assert response.status_code == 200
    assert "has a “{” or a “}” too many" in response.content.decode()
    assert not GuidePath.objects.filter(slug="broken-maths").exists()
