require "uri"
u = URI.parse("https://user:pw@example.com:8080/a/b?q=1&r=two#frag")
p u.scheme, u.host, u.port, u.path, u.query, u.fragment, u.userinfo, u.to_s
p URI.encode_www_form(q: "a b&c", n: 1), URI.decode_www_form("a=1&a=2&b=x"), URI.encode_www_form_component("a b/é"), URI.decode_www_form_component("%C3%A9+x")
p URI.join("http://x.com/a/b/c", "../d").to_s
require "cgi"
p CGI.escape("a b&c/é"), CGI.unescape("a+b%26c"), CGI.escapeHTML("<a href=\"x\">&</a>"), CGI.unescapeHTML("&lt;&eacute;&gt;&amp;")
