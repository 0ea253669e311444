"""What a served page must not contain: a reference the browser would fetch from another host.

Shared by the server's offline-page test (every route but the dashboards) and the browser test,
which checks each dashboard's rendered page as the browser received it."""
import re

#: A reference the browser would fetch from another host.
FETCHED = re.compile(
    r"""\b(?:src|href|action)\s*=\s*["']\s*(?:https?:)?//"""
    r"""|\bimport\s*\(\s*["'](?:https?:)?//|\bfrom\s+["'](?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//|@import\s+["']?(?:https?:)?//""", re.IGNORECASE)


def references_to_other_hosts(body):
    """The places (with 80 characters around each) where ``body`` refers to another host."""
    return [body[max(0, m.start() - 80): m.end() + 80] for m in FETCHED.finditer(body)]
