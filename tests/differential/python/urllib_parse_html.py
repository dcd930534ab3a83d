from urllib.parse import urlparse, urlencode, parse_qs, quote, unquote, urljoin, quote_plus
u = urlparse("https://user:pw@example.com:8080/a/b;p?q=1&r=two#frag")
print(u.scheme, u.netloc, u.hostname, u.port, u.path, u.params, u.query, u.fragment, u.username)
print(urlencode({"q": "a b&c", "n": 1}), parse_qs("a=1&a=2&b=x"), quote("a b/é"), unquote("%C3%A9%20x"))
print(urljoin("http://x.com/a/b/c", "../d"), quote_plus("a b+c"))
import html
print(html.escape('<a href="x">&</a>'), html.unescape("&lt;&eacute;&#x263a;&gt;&amp;"))
