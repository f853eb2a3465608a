// Scroll benchmark of the virtualised table, run inside the app window.
//
// Open an audit, show a long table (Tables → Pages), then run this file as an asynchronous
// WebDriver script (POST /session/{id}/execute/async with this text as "script"). It scrolls
// 150 times by far jumps and 150 times by 100 px steps, and after each one waits for the
// table to re-render and lay out; it returns the median, 95th percentile and maximum time per
// scroll in milliseconds, and how many rows the DOM holds (it stays ~40 whatever the table's
// length).
/* global arguments */
var done = arguments[arguments.length - 1];
var grid = document.querySelector("[role=grid]");
var range = grid.scrollHeight - grid.clientHeight;
var results = [];

function summary(mode, times) {
  times.sort(function (a, b) { return a - b; });
  var k = times.length;
  return mode + ": n " + k + ", median " + times[k >> 1].toFixed(1) + " ms, p95 " +
    times[Math.floor(k * 0.95)].toFixed(1) + " ms, max " + times[k - 1].toFixed(1) + " ms";
}

function run(mode, position, next) {
  var times = [];
  var n = 0;
  function step() {
    if (n >= 150) {
      results.push(summary(mode, times));
      return next();
    }
    var start = performance.now();
    grid.scrollTop = position(n);
    grid.dispatchEvent(new Event("scroll"));
    Promise.resolve().then(function () { return Promise.resolve(); }).then(function () {
      var rows = document.querySelectorAll("[data-testid=table-row]");
      rows[rows.length - 1].getBoundingClientRect();
      times.push(performance.now() - start);
      n++;
      setTimeout(step, 5);
    });
  }
  step();
}

run("far jumps", function (n) { return ((n * 7919) % 150) / 150 * range; }, function () {
  grid.scrollTop = range / 3;
  run("100 px steps", function () { return grid.scrollTop + 100; }, function () {
    var rows = document.querySelectorAll("[data-testid=table-row]").length;
    done(results.join(" | ") + "; rows in the DOM: " + rows + "; table height " + grid.scrollHeight + " px");
  });
});
