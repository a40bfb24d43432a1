// The trained-data packages of tesseract.js (@tesseract.js-data/<lang>) ship no types: they are only
// named in functions/tasks/process-pdf-step.ts so that serverless packs them (their files are read by
// path, lib/engines/core/ocr-detect.ts).
declare module '@tesseract.js-data/eng';
declare module '@tesseract.js-data/deu';
