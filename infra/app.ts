import { App } from 'aws-cdk-lib';
import { DataStack } from './data-stack.ts';

const app = new App();
new DataStack(app, 'LtsData');
app.synth();
