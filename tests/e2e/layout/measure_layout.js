// Injected at the end of a copy of an HTML report by report_screenshot.sh:
// measures the laid-out page and writes what it found, as JSON, into a
// pre element with the id layout-check, which --dump-dom prints.
(function () {
  var viewport = document.documentElement.clientWidth;
  var problems = [];
  function describe(element) {
    var text = element.tagName.toLowerCase();
    if (element.id) text += '#' + element.id;
    if (element.className && typeof element.className === 'string') text += '.' + element.className.split(' ').join('.');
    return text + ' "' + (element.textContent || '').trim().slice(0, 40) + '"';
  }
  // Inside a box that scrolls or clips horizontally, width is that box's job.
  function insideScrollBox(element) {
    for (var parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
      var overflow = getComputedStyle(parent).overflowX;
      if (overflow === 'auto' || overflow === 'scroll' || overflow === 'hidden') return true;
    }
    return false;
  }
  var elements = document.body.querySelectorAll('*');
  var checked = 0;
  for (var i = 0; i < elements.length; i++) {
    var box = elements[i].getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    checked++;
    if (box.right > viewport + 0.5 && !insideScrollBox(elements[i]))
      problems.push('wider than the viewport (' + Math.round(box.right) + ' > ' + viewport + 'px): ' + describe(elements[i]));
  }
  if (document.documentElement.scrollWidth > viewport)
    problems.push('the page scrolls horizontally: ' + document.documentElement.scrollWidth + ' > ' + viewport + 'px');
  // Twelve characters in each cell's font, measured on a canvas: a probe
  // element in every cell would lay the page out again for each cell, which
  // took minutes on a report of 15,000 cells.
  var context = document.createElement('canvas').getContext('2d');
  var twelveByFont = {};
  function twelveCharacters(element) {
    var style = getComputedStyle(element);
    var font = style.fontStyle + ' ' + style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
    if (!(font in twelveByFont)) {
      context.font = font;
      twelveByFont[font] = context.measureText('000000000000').width;
    }
    return twelveByFont[font];
  }
  var cells = document.querySelectorAll('td, th');
  var measured = 0;
  for (var c = 0; c < cells.length; c++) {
    var cell = cells[c].getBoundingClientRect();
    if (cell.width === 0) continue; // collapsed
    var twelve = twelveCharacters(cells[c]);
    measured++;
    if (cell.width + 0.5 < twelve)
      problems.push('cell narrower than 12 characters (' + Math.round(cell.width) + ' < ' + Math.round(twelve) + 'px): ' + describe(cells[c]));
  }
  var out = document.createElement('pre');
  out.id = 'layout-check';
  out.hidden = true; // the same start takes the page's screenshot
  out.textContent = JSON.stringify({viewport: viewport, elements: checked, cells: measured, problems: problems.slice(0, 50), problem_count: problems.length});
  document.body.appendChild(out);
})();
