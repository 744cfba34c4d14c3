import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { z } from 'zod'
import { ApiRequestError } from '../../api/http.ts'
import { signInSetupQuery } from '../../api/session.ts'
import { useSession } from '../../state/session.ts'
import { signInFailure } from './sign-in-failure.ts'

const signInSchema = z.object({
  name: z.string().trim().min(1, 'Enter your name.'),
  password: z.string().min(1, 'Enter your password.'),
})
type SignInFields = z.infer<typeof signInSchema>

export function SignInPage() {
  const signIn = useSession((s) => s.signIn)
  const [failure, setFailure] = useState<string | null>(null)
  // Only a definite "no users" shows the note: while it loads, or if the question fails, the form is enough.
  const noUsersYet = useQuery(signInSetupQuery).data?.hasUsers === false
  const {
    register,
    handleSubmit,
    resetField,
    setFocus,
    formState: { errors, isSubmitting },
  } = useForm<SignInFields>({
    resolver: zodResolver(signInSchema),
    defaultValues: { name: '', password: '' },
  })

  const onSubmit = handleSubmit(async (fields) => {
    setFailure(null)
    try {
      await signIn(fields)
    } catch (err) {
      setFailure(signInFailure(err))
      if (err instanceof ApiRequestError && err.status === 401) {
        resetField('password')
        setFocus('password')
      }
    }
  })

  return (
    <section aria-labelledby="sign-in-heading" className="page sign-in">
      <h1 id="sign-in-heading">Sign in</h1>
      {noUsersYet && <FirstUserNote />}
      <form className="sign-in-form" noValidate onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor="sign-in-name">Name</label>
          <input
            id="sign-in-name"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? 'sign-in-name-error' : undefined}
            {...register('name')}
          />
          {errors.name && (
            <span id="sign-in-name-error" className="field-error">
              {errors.name.message}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="sign-in-password">Password</label>
          <input
            id="sign-in-password"
            type="password"
            autoComplete="current-password"
            aria-invalid={errors.password ? true : undefined}
            aria-describedby={errors.password ? 'sign-in-password-error' : undefined}
            {...register('password')}
          />
          {errors.password && (
            <span id="sign-in-password-error" className="field-error">
              {errors.password.message}
            </span>
          )}
        </div>
        {failure && (
          <p role="alert" className="form-error">
            {failure}
          </p>
        )}
        <div className="buttons">
          <button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </section>
  )
}

/** A studio with no users opens no automatic admin unless it runs on loopback with the embedded service. */
function FirstUserNote() {
  return (
    <section aria-labelledby="first-user-heading" className="first-user-note">
      <h2 id="first-user-heading">No one can sign in yet</h2>
      <p>
        This studio has no users. Whoever runs it makes the first one on the studio’s machine, in the project
        folder:
      </p>
      <pre>
        <code>npm run users -- add YOUR-NAME --role admin</code>
      </pre>
      <p>
        It asks for a password. Then sign in here with that name and password; an administrator adds everyone
        else the same way, each with one role: designer, consent_admin, reviewer or admin.
      </p>
    </section>
  )
}
