"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { LocaleProvider } from "./ui/locale";

export function Providers({ locale, timeZone, children }: { locale: string; timeZone: string; children: ReactNode }) {
  // One client per browser tab; server-rendered data arrives as initialData, so no refetch on mount.
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 30_000, refetchOnWindowFocus: false, retry: 1 } } }),
  );
  return (
    <QueryClientProvider client={client}>
      <LocaleProvider locale={locale} timeZone={timeZone}>
        {children}
      </LocaleProvider>
    </QueryClientProvider>
  );
}
