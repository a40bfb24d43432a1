/**
 * The convert options of audio and video outputs, checked against the output format at task creation
 * (a 422 naming the field), so that a request the format cannot take never reaches FFmpeg: video
 * options on an audio format, a codec the container cannot hold, a sample rate or channel count its
 * codec does not take, a trim that ends before it starts.
 */
import { audioLimits, MEDIA_OUTPUTS, VIDEO_ONLY_OPTIONS, type MediaOutput } from '../core/media-formats.js';

/** What the checks read of a convert request. */
export interface MediaRequest {
  output_format?: string;
  video_codec?: string;
  audio_codec?: string;
  audio_channels?: number;
  audio_frequency?: number;
  fps?: number;
  trim_start?: number | string;
  trim_end?: number | string;
  [option: string]: unknown;
}

export interface OptionProblem {
  field: string;
  message: string;
}

/** Seconds from `12.5` or `"00:01:02.5"` (CloudConvert's trim values); `NaN` for anything else. */
export function seconds(value: number | string): number {
  if (typeof value === 'number') return value;
  if (!/^\s*\d+(?:\.\d+)?(?::\d+(?:\.\d+)?){0,2}\s*$/.test(value)) return Number.NaN;
  return value.split(':').reduce((total, part) => total * 60 + Number.parseFloat(part), 0);
}

/** The audio codec a request gets for a format: the one asked for, else the format's usual one. */
export const audioCodecOf = (spec: MediaOutput, p: Pick<MediaRequest, 'audio_codec'>) => p.audio_codec ?? spec.audio;

function audioProblems(format: string, spec: MediaOutput, p: MediaRequest): OptionProblem[] {
  const problems: OptionProblem[] = [];
  const codec = audioCodecOf(spec, p);
  if (codec === 'none' && spec.kind === 'audio') problems.push({ field: 'audio_codec', message: `${format} is an audio format: it needs its sound` });
  else if (codec !== 'copy' && codec !== 'none' && !spec.audioCodecs.includes(codec)) {
    problems.push({ field: 'audio_codec', message: `${format} holds the audio codecs ${spec.audioCodecs.join(', ')} (or copy), not ${codec}` });
  }
  const limits = codec === 'copy' || codec === 'none' ? {} : audioLimits(codec);
  const rates = spec.rates ?? limits.rates;
  if (p.audio_frequency !== undefined && rates && !rates.includes(p.audio_frequency)) {
    problems.push({ field: 'audio_frequency', message: `${codec} in ${format} takes the sample rates ${rates.join(', ')} Hz` });
  }
  if (p.audio_channels !== undefined && limits.channels !== undefined && p.audio_channels > limits.channels) {
    problems.push({ field: 'audio_channels', message: `${codec} takes up to ${limits.channels} channel${limits.channels > 1 ? 's' : ''}` });
  }
  if ((p.audio_frequency !== undefined || p.audio_channels !== undefined) && codec === 'copy') {
    problems.push({ field: p.audio_frequency !== undefined ? 'audio_frequency' : 'audio_channels', message: 'the sound is copied as it is (audio_codec copy)' });
  }
  return problems;
}

function videoProblems(format: string, spec: MediaOutput, p: MediaRequest): OptionProblem[] {
  const problems: OptionProblem[] = [];
  if (spec.kind === 'audio') {
    for (const option of VIDEO_ONLY_OPTIONS) {
      if (p[option] !== undefined) problems.push({ field: option, message: `${format} is an audio format: it takes no ${option}` });
    }
    return problems;
  }
  if (p.video_codec !== undefined && p.video_codec !== 'copy' && !spec.videoCodecs!.includes(p.video_codec)) {
    problems.push({ field: 'video_codec', message: `${format} holds the video codecs ${spec.videoCodecs!.join(', ')} (or copy), not ${p.video_codec}` });
  }
  if (p.fps !== undefined && spec.frameRates && !spec.frameRates.includes(p.fps)) {
    problems.push({ field: 'fps', message: `${format} takes the frame rates ${spec.frameRates.join(', ')}` });
  }
  return problems;
}

function trimProblems(p: MediaRequest): OptionProblem[] {
  const problems: OptionProblem[] = [];
  const start = p.trim_start === undefined ? 0 : seconds(p.trim_start);
  const end = p.trim_end === undefined ? undefined : seconds(p.trim_end);
  if (Number.isNaN(start)) problems.push({ field: 'trim_start', message: 'must be seconds or a time such as 00:01:30.5' });
  if (end !== undefined && Number.isNaN(end)) problems.push({ field: 'trim_end', message: 'must be seconds or a time such as 00:01:30.5' });
  else if (end !== undefined && !Number.isNaN(start) && end <= start) problems.push({ field: 'trim_end', message: 'must be after trim_start' });
  return problems;
}

/** Problems with a convert request's media options for its output format (none for a format FFmpeg does not write). */
export function mediaOptionProblems(format: string, p: MediaRequest): OptionProblem[] {
  const spec = MEDIA_OUTPUTS[format];
  if (!spec) return format === 'gif' ? trimProblems(p) : [];
  return [...videoProblems(format, spec, p), ...audioProblems(format, spec, p), ...trimProblems(p)];
}
