from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse, translate_url
from django.utils.translation import get_language, get_language_info, override


def languages(request: HttpRequest) -> dict:
    """The current page in every language, for the switcher and the hreflang alternates."""
    match = request.resolver_match
    query = request.META.get("QUERY_STRING", "")
    current = get_language()
    # A request for a host the site does not serve gets the 400 page, rendered with this
    # context: it has no absolute URL to offer, so no hreflang alternates.
    try:
        request.get_host()
    except DisallowedHost:
        served_host = False
    else:
        served_host = True
    links = []
    for code, _name in settings.LANGUAGES:
        url = None
        if match is not None:  # The view that matched, reversed in the other language.
            with override(code):
                try:
                    url = reverse(match.view_name, args=match.args, kwargs=match.kwargs)
                except NoReverseMatch:  # a view without a name: the admin's catch-all 404
                    pass
            if url and query:
                url = f"{url}?{query}"
        if url is None:  # An error page: no view matched, so translate the path.
            url = translate_url(request.get_full_path(), code)
        links.append(
            {
                "code": code,
                "name": get_language_info(code)["name_local"],
                "url": url,
                "absolute_url": request.build_absolute_uri(url) if served_host else None,
                "is_current": code == current,
            }
        )
    return {"language_links": links}
