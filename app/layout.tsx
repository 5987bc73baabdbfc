import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import { requestLocale, requestTimeZone } from "@/components/ui/request-locale";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Mosaic", template: "%s · Mosaic" },
  description: "Answers from all your knowledge sources, with the evidence behind every answer.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: its scripts carry that request's CSP nonce (proxy.ts).
  await connection();
  // Dates and numbers follow the reader's browser; the words stay English (lang="en").
  const locale = await requestLocale();
  const timeZone = await requestTimeZone();
  return (
    <html lang="en">
      <body className="min-h-screen">
        <Providers locale={locale} timeZone={timeZone}>
          {children}
        </Providers>
      </body>
    </html>
  );
}
