package dev.zklock.aop

import dev.zklock.FencingToken
import dev.zklock.LockLostException
import dev.zklock.LockTemplate
import dev.zklock.core.LockPaths
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.isActive
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.slf4j.MDCContext
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.apache.curator.framework.CuratorFramework
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.aop.framework.autoproxy.AutoProxyUtils
import org.springframework.aop.support.AopUtils
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import java.time.Duration
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * Kotlin suspend functions and Flow methods hold their lock until their body
 * completes, against a real ZooKeeper server, through JDK and CGLIB proxies alike:
 * each test runs its scenario on both proxies of one context, on keys of their own.
 */
class CoroutineDistributedLockTests {

    private val contextRunner: ApplicationContextRunner = TestZooKeeper.contextRunner()
        .withBean("jdkWork", CoroutineWork::class.java, { CoroutineWorkImpl() })
        .withBean("cglibWork", CoroutineWorkImpl::class.java, { CoroutineWorkImpl() }, { definition ->
            definition.setAttribute(AutoProxyUtils.PRESERVE_TARGET_CLASS_ATTRIBUTE, true)
        })
        .withPropertyValues("zk-lock.default-timeout=30s")

    @Test
    fun coroutinesOnOneKeyNeverOverlapAndTheNodeExistsWhileTheBodyIsSuspended() = run { context, kind, work ->
        val client = context.getBean(CuratorFramework::class.java)
        runBlocking {
            withTimeout(30_000) {
                (1..2).map { async(Dispatchers.Default) { repeat(10) { work.counted("$kind-k", 20) } } }.awaitAll()
            }
        }
        assertThat(work.maxActive).isEqualTo(1)
        val started = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<Unit>()
        runBlocking {
            val call = async(Dispatchers.Default) { work.held("$kind-h", started, gate) }
            started.await()
            assertThat(TestZooKeeper.ephemeralNodes(client, lockPath(context, "$kind-h"))).isEqualTo(1)
            gate.complete(Unit)
            assertThat(call.await()).isEqualTo("done $kind-h")
        }
        awaitNodes(client, lockPath(context, "$kind-h"), 0)
    }

    @Test
    fun theSameLoadOverlapsWithoutTheLock() {
        val work = CoroutineWorkImpl()
        runBlocking {
            (1..2).map { async(Dispatchers.Default) { repeat(10) { work.counted("k", 20) } } }.awaitAll()
        }
        assertThat(work.maxActive).isEqualTo(2)
    }

    @Test
    fun collectionKeysLockEveryKeyWhileTheBodyIsSuspended() = run { context, kind, work ->
        val client = context.getBean(CuratorFramework::class.java)
        val started = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<Unit>()
        runBlocking {
            val call = launch(Dispatchers.Default) { work.heldMany(listOf("$kind-a", "$kind-b"), started, gate) }
            started.await()
            assertThat(TestZooKeeper.ephemeralNodes(client, lockPath(context, "$kind-a"))).isEqualTo(1)
            assertThat(TestZooKeeper.ephemeralNodes(client, lockPath(context, "$kind-b"))).isEqualTo(1)
            gate.complete(Unit)
            call.join()
        }
        awaitNodes(client, lockPath(context, "$kind-a"), 0)
        awaitNodes(client, lockPath(context, "$kind-b"), 0)
    }

    @Test
    fun fiftyCoroutinesOnOneThreadGetTheLockInOrderWhileATickerKeepsTicking() = run { _, kind, work ->
        val dispatcher = Dispatchers.Default.limitedParallelism(1)
        val ticks = AtomicInteger()
        runBlocking {
            withTimeout(60_000) {
                val ticker = launch(dispatcher) {
                    while (isActive) {
                        delay(5)
                        ticks.incrementAndGet()
                    }
                }
                (1..50).map { launch(dispatcher) { work.stamped("$kind-fifo") } }.joinAll()
                ticker.cancelAndJoin()
            }
        }
        // each body ran after the one before it: fencing tokens, the zxids of the queue's nodes, rise
        assertThat(work.tokens).hasSize(50).isSorted().doesNotHaveDuplicates()
        // the one thread was never blocked waiting for a lock
        assertThat(ticks.get()).isGreaterThan(10)
        println("$kind: 50 coroutines on one thread, ${ticks.get()} ticks meanwhile")
    }

    @Test
    fun aTimeoutWhileWaitingRemovesTheNodeAndTheNextCallerFollowsTheHolder() = run { context, kind, work ->
        val client = context.getBean(CuratorFramework::class.java)
        val path = lockPath(context, "$kind-w")
        val started = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<Unit>()
        runBlocking {
            val holder = async(Dispatchers.Default) { work.held("$kind-w", started, gate) }
            started.await()
            assertThatExceptionOfType(TimeoutCancellationException::class.java).isThrownBy {
                runBlocking { withTimeout(300) { work.counted("$kind-w", 0) } }
            }
            val timedOut = System.nanoTime()
            awaitChildren(client, path, 1)
            val removedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - timedOut)
            val next = async(Dispatchers.Default) { work.stamped("$kind-w") }
            awaitChildren(client, path, 2)
            val released = System.nanoTime()
            gate.complete(Unit)
            holder.await()
            next.await()
            val followedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released)
            println("$kind: waiter's node gone $removedMs ms after its timeout, next caller ran $followedMs ms after the release")
            assertThat(followedMs).isLessThan(3_000)
        }
    }

    @Test
    fun cancellingTheHolderReleasesAndCancelsTheBodyAndAnExceptionKeepsItsType() = run { context, kind, work ->
        val client = context.getBean(CuratorFramework::class.java)
        val path = lockPath(context, "$kind-c")
        val started = CompletableDeferred<Unit>()
        runBlocking {
            val job = launch(Dispatchers.Default) { work.held("$kind-c", started, CompletableDeferred()) }
            started.await()
            assertThat(TestZooKeeper.ephemeralNodes(client, path)).isEqualTo(1)
            job.cancelAndJoin()
        }
        awaitNodes(client, path, 0)
        await().atMost(Duration.ofSeconds(10)).until { work.cancelledBodies == 1 }
        assertThatExceptionOfType(WorkFailedException::class.java)
            .isThrownBy { runBlocking { work.failing("$kind-c") } }
            .withMessage("failed $kind-c")
        awaitNodes(client, path, 0)
    }

    @Test
    fun readersShareTheLockAndAWriterWaitsForThem() = run { _, kind, work ->
        val gate = CompletableDeferred<Unit>()
        runBlocking {
            withTimeout(30_000) {
                val started = (1..2).map { CompletableDeferred<Unit>() }
                val readers = started.map { launch(Dispatchers.Default) { work.read("$kind-rw", it, gate) } }
                // both readers are inside at once
                started.awaitAll()
                val writer = async(Dispatchers.Default) { work.write("$kind-rw") }
                delay(50)
                assertThat(writer.isCompleted).isFalse()
                val released = System.nanoTime()
                gate.complete(Unit)
                readers.joinAll()
                assertThat(writer.await()).isGreaterThan(released)
            }
        }
    }

    @Test
    fun minHoldKeepsTheLockAndALostLockFailsTheCall() = run { context, kind, work ->
        runBlocking {
            // minHold counts from the acquisition, a little before the body starts
            val entered = work.brief("$kind-m")
            work.stamped("$kind-m")
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - entered)).isGreaterThanOrEqualTo(250)
        }
        val started = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<Unit>()
        assertThatExceptionOfType(LockLostException::class.java).isThrownBy {
            runBlocking {
                val holder = async(Dispatchers.Default) { work.held("$kind-l", started, gate) }
                started.await()
                context.getBean(LockTemplate::class.java).revoke("co", "$kind-l")
                await().atMost(Duration.ofSeconds(10)).until { work.heldLock?.isHeld == false }
                gate.complete(Unit)
                holder.await()
            }
        }.withMessageContaining("no longer held")
    }

    @Test
    fun aNestedCallOnTheCallersKeyFailsAtOnce() = run { _, kind, work ->
        val message = runBlocking { withTimeout(10_000) { work.nested("$kind-n", work) } }
        assertThat(message).contains("while its caller holds that lock already")
    }

    @Test
    fun theCallersContextElementsAndMdcAreVisibleInTheBody() = run { _, kind, work ->
        val seen = runBlocking {
            withContext(Dispatchers.Default + CallerTag("tag-$kind") + MDCContext(mapOf("request" to "42"))) {
                work.contextSeen("$kind-ctx")
            }
        }
        assertThat(seen).isEqualTo("tag-$kind 42")
    }

    @Test
    fun skipFallbackAndFencingTokenWorkAsForMono() = run { _, kind, work ->
        val started = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<Unit>()
        runBlocking {
            val holder = async(Dispatchers.Default) { work.held("$kind-s", started, gate) }
            started.await()
            assertThat(work.skippable("$kind-s")).isNull()
            assertThat(work.withFallback("$kind-s")).isEqualTo("fallback $kind-s LockTimeoutException")
            gate.complete(Unit)
            holder.await()
            assertThat(work.skippable("$kind-s")).isEqualTo("ran $kind-s")
            assertThat(work.withFallback("$kind-s")).isEqualTo("ran $kind-s")
            assertThat(work.fenced("$kind-s", FencingToken(1))).isGreaterThan(1)
        }
    }

    @Test
    fun eachFlowCollectionHoldsTheLockUntilItCompletesAndTakeOneReleases() = run { context, kind, work ->
        val client = context.getBean(CuratorFramework::class.java)
        val forms: List<Pair<String, suspend (String, Int) -> Flow<Int>>> =
            listOf("fun" to { key, count -> work.stream(key, count) },
                "suspend fun" to { key, count -> work.suspendStream(key, count) })
        for ((form, call) in forms) {
            val key = "$kind-$form-flow"
            runBlocking {
                withTimeout(30_000) {
                    val flow = call(key, 3)
                    val collections = (1..2).map { async(Dispatchers.Default) { flow.toList() } }
                    assertThat(collections.awaitAll()).containsExactly(listOf(1, 2, 3), listOf(1, 2, 3))
                    assertThat(work.maxActive).`as`(form).isEqualTo(1)
                    // a long flow: only cancelling its collection can release the lock this soon
                    assertThat(call(key, 10_000).take(1).toList()).containsExactly(1)
                    awaitNodes(client, lockPath(context, key), 0)
                    assertThat(call(key, 1).toList()).containsExactly(1)
                }
            }
        }
    }

    private fun run(scenario: (ApplicationContext, String, CoroutineWork) -> Unit) {
        this.contextRunner.run { context ->
            val jdk = context.getBean("jdkWork", CoroutineWork::class.java)
            val cglib = context.getBean("cglibWork", CoroutineWork::class.java)
            assertThat(AopUtils.isJdkDynamicProxy(jdk)).isTrue()
            assertThat(AopUtils.isCglibProxy(cglib)).isTrue()
            scenario(context, "jdk", jdk)
            scenario(context, "cglib", cglib)
        }
    }

    private fun lockPath(context: ApplicationContext, key: String): String =
        context.environment.getProperty("zk-lock.base-path") + "/" + LockPaths.encode("co") + "/" + LockPaths.encode(key)

    private fun awaitNodes(client: CuratorFramework, path: String, count: Int) {
        await().atMost(Duration.ofSeconds(10)).until { TestZooKeeper.ephemeralNodes(client, path) == count }
    }

    private fun awaitChildren(client: CuratorFramework, path: String, count: Int) {
        // polled often, so that the figures printed show when the node went, not the poll interval
        await().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(10))
            .until { client.children.forPath(path).size == count }
    }

}
