@file:JvmName("LockTemplateExtensions")

package dev.zklock

import dev.zklock.core.AsyncLockHandle
import kotlinx.coroutines.future.await
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.withContext
import org.slf4j.LoggerFactory
import reactor.util.context.Context
import kotlin.coroutines.coroutineContext

private val logger = LoggerFactory.getLogger("dev.zklock.LockTemplateExtensions")

/**
 * Runs [block] while holding the lock [request] asks for, as
 * [LockTemplate.execute] does, but without blocking a thread: the caller suspends
 * while it waits for the lock, and the body may suspend while it holds it.
 *
 * - Cancelling the caller while it waits deletes its node; while it holds,
 *   cancels [block] and releases the lock.
 * - An exception from [block] releases the lock and reaches the caller unchanged.
 * - When [block] returns while the lock is lost or in doubt, the lock is released
 *   and a [LockLostException] thrown, or a warning logged, as the template's
 *   [LostLockAction] says.
 * - Inside [block], [findLockContext] and `@DistributedLock` suspend functions
 *   called from it see the lock, so a nested call on the same key fails at once.
 *
 * @throws LockTimeoutException when the lock was not acquired in time
 * @throws LockException when ZooKeeper fails
 */
suspend fun <T> LockTemplate.withLock(request: LockRequest, block: suspend (LockContext) -> T): T {
    val handle = asyncLockManager().acquire(request).await()
    if (!handle.isAcquired) {
        throw timeout(request)
    }
    val result = try {
        withContext(reactorContextWith(handle)) { block(handle) }
    } catch (ex: Throwable) {
        // fire and forget: a cancelled caller must not wait for ZooKeeper
        handle.release()
        throw ex
    }
    val lost = checkHeld(handle)
    try {
        handle.release().await()
    } catch (releaseFailure: RuntimeException) {
        if (lost == null) {
            throw releaseFailure
        }
        lost.addSuppressed(releaseFailure)
    }
    if (lost != null) {
        if (lostLockAction() == LostLockAction.THROW) {
            throw lost
        }
        logger.warn("withLock block returned after its lock was no longer held: {}", lost.message)
    }
    return result
}

// the Reactor context is where zk-lock's suspend functions look for their caller's lock
private suspend fun reactorContextWith(handle: AsyncLockHandle): ReactorContext {
    val outer = coroutineContext[ReactorContext]?.context ?: Context.empty()
    return ReactorContext(outer.put(LockContext::class.java, handle))
}

private fun checkHeld(handle: AsyncLockHandle): LockLostException? =
    try {
        handle.assertHeld()
        null
    } catch (ex: LockLostException) {
        ex
    }
