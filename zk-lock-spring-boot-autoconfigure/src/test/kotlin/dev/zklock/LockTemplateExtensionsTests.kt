package dev.zklock

import dev.zklock.aop.TestZooKeeper
import dev.zklock.core.LockPaths
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.apache.curator.framework.CuratorFramework
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger

/**
 * `LockTemplate.withLock` holds its lock across suspension, against a real
 * ZooKeeper server, and gives the block the lock's context.
 */
class LockTemplateExtensionsTests {

    private val contextRunner = TestZooKeeper.contextRunner().withPropertyValues("zk-lock.default-timeout=30s")

    @Test
    fun withLockHoldsAcrossDelayAndItsContextReportsTheToken() = inContext("k") { (template, client, path, request) ->
        val active = AtomicInteger()
        val maxActive = AtomicInteger()
        val tokens = mutableListOf<Long>()
        runBlocking(Dispatchers.Default) {
            withTimeout(30_000) {
                (1..2).map {
                    async {
                        repeat(5) {
                            template.withLock(request) { lock ->
                                maxActive.accumulateAndGet(active.incrementAndGet()) { x, y -> maxOf(x, y) }
                                delay(20)
                                // the holder's node is there while the block is suspended
                                assertThat(client.checkExists().forPath(lock.nodePath())).isNotNull()
                                assertThat(findLockContext()).isSameAs(lock)
                                synchronized(tokens) { tokens.add(lock.fencingToken()) }
                                active.decrementAndGet()
                            }
                        }
                    }
                }.awaitAll()
            }
        }
        assertThat(maxActive.get()).isEqualTo(1)
        assertThat(tokens).hasSize(10).doesNotHaveDuplicates().allSatisfy { assertThat(it).isPositive() }
        assertThat(TestZooKeeper.ephemeralNodes(client, path)).isZero()
    }

    @Test
    fun failuresTimeoutsAndCancellationRelease() = inContext("f") { (template, client, path, request) ->
        assertThatExceptionOfType(IllegalStateException::class.java).isThrownBy {
            runBlocking { template.withLock(request) { delay(5); throw IllegalStateException("boom") } }
        }.withMessage("boom")
        awaitNodes(client, path, 0)
        val started = CompletableDeferred<Unit>()
        val gate = CompletableDeferred<Unit>()
        runBlocking {
            val holder = async(Dispatchers.Default) { template.withLock(request) { started.complete(Unit); gate.await() } }
            started.await()
            assertThatExceptionOfType(LockTimeoutException::class.java).isThrownBy {
                runBlocking { template.withLock(request.withTimeout(Duration.ofMillis(50))) { } }
            }
            assertThatExceptionOfType(TimeoutCancellationException::class.java).isThrownBy {
                runBlocking { withTimeout(200) { template.withLock(request) { } } }
            }
            // the cancelled waiter's node is gone; only the holder's is left
            await().atMost(Duration.ofSeconds(10)).until { client.children.forPath(path).size == 1 }
            holder.cancel()
        }
        awaitNodes(client, path, 0)
    }

    private data class Fixture(val template: LockTemplate, val client: CuratorFramework, val path: String,
        val request: LockRequest)

    // returns Unit, so that JUnit runs the test methods declared with it
    private fun inContext(key: String, test: (Fixture) -> Unit) {
        contextRunner.run { context ->
            val path = context.environment.getProperty("zk-lock.base-path") + "/" + LockPaths.encode("kt") + "/" +
                LockPaths.encode(key)
            test(Fixture(context.getBean(LockTemplate::class.java), context.getBean(CuratorFramework::class.java), path,
                LockRequest.named("kt").keys(key).build()))
        }
    }

    private fun awaitNodes(client: CuratorFramework, path: String, count: Int) {
        await().atMost(Duration.ofSeconds(10)).until { TestZooKeeper.ephemeralNodes(client, path) == count }
    }

}
