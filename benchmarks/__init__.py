"""Side-by-side speed comparisons (run by hand or by ``tox -e bench``; never by the tests)."""
