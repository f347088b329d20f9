import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import './lib/i18n.ts';
import './styles/base.css';
import './styles/forms.css';
import './styles/content.css';
import './styles/sign-in.css';
import { authClient } from './lib/auth.ts';
import { httpStatusOf, makeQueryClient, TRPCProvider, trpcClient } from './lib/trpc.ts';
import { App } from './App.tsx';

const queryClient = makeQueryClient();
// A 401 means the session ended elsewhere (signed out, revoked, deactivated): ask identity again,
// and the session guard sends the person to the sign-in page.
queryClient.getQueryCache().subscribe((event) => {
  if (event.type === 'updated' && event.action.type === 'error' && httpStatusOf(event.action.error) === 401) {
    authClient.$store.notify('$sessionSignal');
  }
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </TRPCProvider>
    </QueryClientProvider>
  </StrictMode>,
);
