import { implement } from '../../framework/define.js';
import { importStaged } from '../staged.js';
import { importRaw } from './operation.js';

export default implement(importRaw, importStaged);
