"""`make run`'s demo guide page is valid HTML (the Nu Html Checker); its addresses are checked
in tests/embed/test_demo_guide.py, its frames in a browser by the embed pages' tests."""

from django.conf import settings

GUIDE = settings.BASE_DIR / "quizzes" / "demo" / "guide" / "index.html"


def test_the_demo_guide_page_is_valid_html(nu_checker):
    assert nu_checker.errors(GUIDE.read_text()) == []
