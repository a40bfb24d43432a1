import { implement } from '../../framework/define.js';
import { importStaged } from '../staged.js';
import { importBase64 } from './operation.js';

export default implement(importBase64, importStaged);
