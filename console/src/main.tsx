/** The console's entry: reads the page's configuration and renders the app into #app. */
import { render } from 'preact';
import { useConfig } from './api';
import { App } from './app';
import { readConfig } from './config';
import './styles.css';

const root = document.getElementById('app')!;
const config = readConfig(root);
useConfig(config);
render(<App config={config} />, root);
