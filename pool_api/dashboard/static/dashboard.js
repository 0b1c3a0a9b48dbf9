// Keeps the dashboard fresh: reloads the page every data-refresh seconds,
// and at once when the event feed (under data-watch, with the session
// cookie) reports a new event. Without the feed (a 404, or any error),
// the timed reload goes on alone. The page reads the same without it.
(function () {
  'use strict';
  var body = document.body;
  var refresh = Math.max(1, parseInt(body.getAttribute('data-refresh'), 10) || 15);
  var feed = body.getAttribute('data-watch');
  var state = document.getElementById('watch-state');
  var reloading = false;
  var MIN_GAP = 2000;
  var loadedAt = Date.now();

  function reload() {
    if (reloading) { return; }
    reloading = true;
    var wait = Math.max(0, MIN_GAP - (Date.now() - loadedAt));
    window.setTimeout(function () { window.location.reload(); }, wait);
  }

  window.setTimeout(reload, refresh * 1000);

  function get(url, done, failed) {
    var request = new XMLHttpRequest();
    request.open('GET', url);
    request.setRequestHeader('Accept', 'application/json');
    request.onload = function () {
      if (request.status !== 200) { failed(); return; }
      try { done(JSON.parse(request.responseText)); } catch (e) { failed(); }
    };
    request.onerror = failed;
    request.send();
  }

  function watch(cursor) {
    get(feed + '?since=' + encodeURIComponent(cursor) + '&wait=25',
      function (page) {
        if (page.events && page.events.length) { reload(); return; }
        watch(page.cursor);
      },
      function () {});
  }

  if (feed && window.XMLHttpRequest && window.JSON) {
    get(feed + '?wait=0', function (page) {
      if (typeof page.cursor === 'undefined') { return; }
      if (state) { state.textContent = 'watching events'; }
      body.setAttribute('data-watching', 'true');
      watch(page.cursor);
    }, function () {});
  }
}());
