/** Every figure, in the order the table shows them. */
import type { Figure } from '../report';
import { answerQualityFigure } from './answerQuality';
import { answersFigure } from './answers';
import { engineApiFigure } from './engineApi';
import { engineBurstFigure } from './engineBurst';
import { engineScalingFigure } from './engineScaling';
import { engineSearchFigure } from './engineSearch';
import { hostFigure } from './host';
import { modelFailuresFigure } from './modelFailures';
import { modelInvestigationFigure } from './modelInvestigation';
import { packageFigure } from './package';
import { pollingFigure } from './polling';
import { renderingFigure } from './rendering';
import { webHostFigure } from './webHost';

export const figures: Figure[] = [
  answerQualityFigure,
  modelInvestigationFigure,
  modelFailuresFigure,
  answersFigure,
  pollingFigure,
  hostFigure,
  webHostFigure,
  packageFigure,
  renderingFigure,
  engineSearchFigure,
  engineScalingFigure,
  engineApiFigure,
  engineBurstFigure,
];
