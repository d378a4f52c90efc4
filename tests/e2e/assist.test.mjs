// The editor's API helpers without a browser: which call holds the caret (and which argument), and
// how the notebook's imports map local names to API names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enclosingCall } from '../../www/editor/assist.js';
import { importedNames, resolvePath, setApiTable } from '../../www/editor/api.js';

test('the enclosing call and the argument the caret is in', () => {
  const at = (text) => enclosingCall(text.replace('|', ''), text.indexOf('|'));
  assert.deepEqual(at('y = pt.view(x, [4, 4], |'), { name: 'pt.view', argument: 2, keyword: null, open: 11 });
  assert.deepEqual(at('pt.view(x, [4, |'), { name: 'pt.view', argument: 1, keyword: null, open: 7 }, 'commas inside a list argument do not count');
  assert.equal(at('pt.view(x, valid_shape=|').keyword, 'valid_shape');
  assert.equal(at('pt.exp(pt.sum(x), |').name, 'pt.exp', 'a finished inner call is skipped');
  assert.equal(at('pt.exp(pt.sum(x|').name, 'pt.sum');
  assert.equal(at('x = [1, 2|'), null, 'a list is not a call');
  assert.equal(at('x = 1|'), null);
});

test('imports map local names to API names', () => {
  setApiTable([{ name: 'pypto.nn', kind: 'module' }, { name: 'pypto.nn.layer_norm', kind: 'function' }, { name: 'help', kind: 'function' }]);
  const names = importedNames('import pypto as pt\nfrom pypto import nn as layers\n');
  assert.equal(names.get('pt'), 'pypto');
  assert.equal(names.get('layers'), 'pypto.nn');
  assert.equal(resolvePath('pt.nn.layer_norm', names), 'pypto.nn.layer_norm');
  assert.equal(resolvePath('layers.layer_norm', names), 'pypto.nn.layer_norm');
  assert.equal(resolvePath('pypto.view', names), 'pypto.view', 'pypto itself always resolves');
  assert.equal(resolvePath('help', names), 'help');
  assert.equal(resolvePath('np.exp', names), null);
  const torchNames = importedNames('import torch\nimport torch.nn.functional as F\n');
  assert.equal(torchNames.get('torch'), 'torch');
  assert.equal(torchNames.get('F'), 'torch.nn.functional');
  assert.equal(resolvePath('F.gelu', torchNames), 'torch.nn.functional.gelu');
});
