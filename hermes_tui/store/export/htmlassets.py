"""The fixed parts of an HTML export: stylesheet, inline SVG icons and the sidebar script.

Everything is inline — no fonts, images, scripts or styles are fetched — and the page's
Content-Security-Policy says so to the browser: nothing may load from anywhere, inline
styles are allowed, and the only script that may run is this one (by its SHA-256), so even
markup that slipped into the page could neither run nor fetch anything.
"""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root{--bg:#f5f6f8;--panel:#fff;--fg:#1d2330;--muted:#697386;--line:#dde1e8;
--user:#e3edff;--user-line:#bcd0f7;--asst:#fff;--tool:#f4f5f7;--accent:#5b3fd6;
--code:#f6f8fa;--warn:#a15c00}
*{box-sizing:border-box}
html,body{margin:0;padding:0}
body{background:var(--bg);color:var(--fg);display:flex;min-height:100vh;
font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",
"Hiragino Sans","Microsoft YaHei",sans-serif}
#side{width:300px;flex:none;height:100vh;position:sticky;top:0;display:flex;
flex-direction:column;background:var(--panel);border-right:1px solid var(--line)}
#side header{padding:14px 14px 8px;font-weight:600;display:flex;align-items:center;gap:8px}
#side header svg{color:var(--accent)}
#q{margin:0 12px 6px;padding:7px 10px;border:1px solid var(--line);border-radius:8px;
font:inherit;font-size:14px}
#count{margin:0 14px 8px;color:var(--muted);font-size:12px}
#list{list-style:none;margin:0;padding:0 6px 12px;overflow:auto;flex:1}
#list a{display:block;padding:7px 9px;border-radius:8px;color:inherit;text-decoration:none}
#list a:hover{background:var(--bg)}
#list li.active a{background:#ece8ff}
#list .t{display:block;font-size:14px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#list .m{display:block;font-size:12px;color:var(--muted)}
main{flex:1;min-width:0;padding:0 32px 60px}
.session{max-width:920px;margin:0 auto 20px;padding-top:28px}
.js .session{display:none}
.js .session.current{display:block}
.session>header{border-bottom:1px solid var(--line);margin-bottom:18px;padding-bottom:12px}
.session h1{font-size:22px;margin:0 0 8px;overflow-wrap:anywhere}
.meta{display:flex;flex-wrap:wrap;gap:6px 14px;color:var(--muted);font-size:13px}
.meta span{overflow-wrap:anywhere}
.meta b{font-weight:600;color:var(--fg)}
.segment{margin:26px 0 10px;color:var(--muted);font-size:13px;text-transform:uppercase;
letter-spacing:.04em;border-top:1px dashed var(--line);padding-top:10px}
.msg{display:flex;gap:10px;margin:14px 0;align-items:flex-start}
.msg.user{flex-direction:row-reverse}
.avatar{width:30px;height:30px;flex:none;border-radius:50%;display:flex;align-items:center;
justify-content:center;background:var(--panel);border:1px solid var(--line);color:var(--accent)}
.msg.user .avatar{color:#1f5fd1}
.bubble{min-width:0;max-width:82%;background:var(--asst);border:1px solid var(--line);
border-radius:14px;padding:9px 14px}
.msg.user .bubble{background:var(--user);border-color:var(--user-line)}
.who{font-size:12px;color:var(--muted);margin-bottom:2px}
.who b{color:var(--fg);font-weight:600;margin-right:6px}
.body{overflow-wrap:anywhere}
.body p{margin:6px 0}
.body p.h{font-weight:700}
code{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono",monospace;
background:var(--code);border-radius:4px;padding:1px 4px}
pre.code{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono",monospace;
background:var(--code);border:1px solid var(--line);border-radius:8px;padding:10px 12px;
margin:8px 0;overflow:auto;max-height:520px;white-space:pre}
.codebox{margin:8px 0;border:1px solid var(--line);border-radius:8px;overflow:hidden}
.codebox .lang{font-size:11px;color:var(--muted);padding:2px 10px;background:#eceff3;
border-bottom:1px solid var(--line)}
.codebox pre.code{margin:0;border:0;border-radius:0}
details{margin:6px 0;border:1px solid var(--line);border-radius:10px;background:var(--tool)}
details>summary{cursor:pointer;padding:6px 10px;font-size:13px;display:flex;gap:6px;
align-items:center;list-style:none;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
details>summary::-webkit-details-marker{display:none}
details>summary::before{content:"\\25B8";color:var(--muted)}
details[open]>summary::before{content:"\\25BE"}
details>summary svg{flex:none;color:var(--accent)}
details>summary .arg{color:var(--muted);overflow:hidden;text-overflow:ellipsis}
details>.inner{padding:0 10px 8px}
details.result{margin-left:40px;max-width:calc(82% - 40px)}
details.result.error summary svg{color:var(--warn)}
details.reasoning{background:#faf8ff}
details.system{background:#fffaf0}
.empty{color:var(--muted);font-style:italic}
footer.note{max-width:920px;margin:0 auto;color:var(--muted);font-size:12px}
@media (max-width:760px){#side{display:none}.bubble{max-width:100%}main{padding:16px}}
@media print{#side{display:none}.js .session{display:block}}
"""

_PATHS = {
    "user": '<circle cx="12" cy="8" r="4"/><path d="M4 21c0-4.4 3.6-7 8-7s8 2.6 8 7"/>',
    "assistant": (
        '<rect x="4" y="7" width="16" height="12" rx="3"/><path d="M12 3v4M9 12h.01M15 12h.01'
        'M9 16h6"/>'
    ),
    "tool": (
        '<path d="M14.7 6.3a4 4 0 0 0-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 0 0 5.4-5.4l-2.6 2.6-2.4-.6'
        '-.6-2.4z"/>'
    ),
    "result": '<path d="M4 5h16v14H4z"/><path d="M8 10l3 3-3 3M13 16h4"/>',
    "thought": (
        '<path d="M9 18h6M10 21h4M12 3a6 6 0 0 0-3.5 10.9c.6.5 1 1.2 1 2.1h5c0-.9.4-1.6 1-2.1A6 '
        '6 0 0 0 12 3z"/>'
    ),
    "system": '<circle cx="12" cy="12" r="3"/><path d="M12 2v3M12 19v3M2 12h3M19 12h3"/>',
    "logo": '<path d="M4 6h16M4 12h16M4 18h10"/>',
}


def icon(name: str, size: int = 16) -> str:
    """An inline SVG icon (fixed markup; no stored text goes in)."""
    return (
        f'<svg width="{size}" height="{size}" viewBox="0 0 24 24" fill="none" '
        'stroke="currentColor" stroke-width="2" stroke-linecap="round" '
        f'stroke-linejoin="round" aria-hidden="true">{_PATHS[name]}</svg>'
    )


# Shows one session at a time (the one the address names, else the first), and filters
# the sidebar as you type. Without scripts every session simply shows, one after another.
SCRIPT = """(function(){
var d=document,b=d.body,q=d.getElementById('q'),c=d.getElementById('count');
var items=[].slice.call(d.querySelectorAll('#list li'));
var secs=[].slice.call(d.querySelectorAll('section.session'));
if(!secs.length)return;
b.classList.add('js');
function show(){var id=location.hash.slice(1),found=false;
secs.forEach(function(s){if(s.id===id)found=true;});
if(!found)id=secs[0].id;
secs.forEach(function(s){s.classList.toggle('current',s.id===id);});
items.forEach(function(li){var on=li.getAttribute('data-target')===id;
li.classList.toggle('active',on);if(on&&li.scrollIntoView)li.scrollIntoView({block:'nearest'});});
window.scrollTo(0,0);}
window.addEventListener('hashchange',show);show();
q.addEventListener('input',function(){var t=q.value.toLowerCase().trim(),n=0;
items.forEach(function(li){var m=!t||li.getAttribute('data-q').indexOf(t)>=0;
li.hidden=!m;if(m)n++;});
c.textContent=n+' of '+items.length+' sessions';});
})();"""


def csp(with_script: bool) -> str:
    """The page's Content-Security-Policy: nothing loads; only our own script runs."""
    script = "'none'"
    if with_script:
        digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
        script = f"'sha256-{digest}'"
    return (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src {script}; base-uri 'none'; form-action 'none'"
    )
