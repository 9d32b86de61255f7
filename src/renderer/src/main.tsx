import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createApiClient, electronBridge } from './api/client';
import './styles.css';

const bridge = electronBridge();
// In Electron the preload hands out the key per request; in a browser the session cookie authenticates.
const api = createApiClient(bridge ? { apiKey: () => bridge.apiKey() } : {});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App api={api} />
  </StrictMode>,
);
