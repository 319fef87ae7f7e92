"""The learner's side: the pages, their reads (selectors) and writes (services), accounts,
who the learner of a request is, and the page script."""
