from django.conf import settings
from django.http import HttpRequest
from django.urls import translate_url
from django.utils.translation import get_language, get_language_info


def languages(request: HttpRequest) -> dict:
    """The current page in every language, for the switcher and the hreflang alternates."""
    path = request.get_full_path()
    current = get_language()
    links = []
    for code, _name in settings.LANGUAGES:
        url = translate_url(path, code)
        links.append(
            {
                "code": code,
                "name": get_language_info(code)["name_local"],
                "url": url,
                "absolute_url": request.build_absolute_uri(url),
                "is_current": code == current,
            }
        )
    return {"language_links": links}
