"use client";

import { signOut } from "next-auth/react";
import { Button } from "../ui/button";

export function SignOutButton() {
  return (
    <Button variant="secondary" className="w-full" onClick={() => signOut({ callbackUrl: "/signin" })}>
      Sign out
    </Button>
  );
}
