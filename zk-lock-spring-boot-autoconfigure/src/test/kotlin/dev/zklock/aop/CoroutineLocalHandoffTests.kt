package dev.zklock.aop

import dev.zklock.FencingToken
import dev.zklock.annotation.DistributedLock
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.apache.curator.framework.CuratorFramework
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.context.ApplicationContext

/**
 * `@DistributedLock(localHandoff = true)` on a suspend function: concurrent calls
 * of one process on one key share one node and one fencing token.
 */
class CoroutineLocalHandoffTests {

    private val contextRunner = TestZooKeeper.contextRunner()
        .withBean(HotCoroutines::class.java)
        .withPropertyValues("zk-lock.default-timeout=30s")

    @Test
    fun suspendCallsOnOneKeyShareOneNodeAndOneToken() {
        contextRunner.run { context -> assertOneTenure(context) }
    }

    private fun assertOneTenure(context: ApplicationContext) {
        val hot = context.getBean(HotCoroutines::class.java)
        val manager = HotKeyRound.manager(context)
        val client = context.getBean(CuratorFramework::class.java)
        val release = CompletableDeferred<Unit>()
        val tokens = runBlocking {
            withTimeout(30_000) {
                val first = async(Dispatchers.Default) { hot.hold("k", FencingToken(1), release) }
                await().atMost(HotKeyRound.WAIT).until { manager.registry.heldCount() == 1 }
                val next = (1..WAITERS).map {
                    async(Dispatchers.Default) { hot.hold("k", FencingToken(1), CompletableDeferred(Unit)) }
                }
                await().atMost(HotKeyRound.WAIT).until { manager.registry.waitingCount() == WAITERS }
                assertThat(TestZooKeeper.ephemeralNodes(client, manager.basePath)).isEqualTo(1)
                release.complete(Unit)
                (listOf(first) + next).awaitAll()
            }
        }
        assertThat(tokens).hasSize(WAITERS + 1).containsOnly(tokens[0])
        assertThat(tokens[0]).isGreaterThan(1)
        assertThat(manager.localHandoffs.localHandoffs()).isEqualTo(WAITERS.toLong())
        assertThat(manager.localHandoffs.zooKeeperHandoffs()).isEqualTo(1)
    }

    private companion object {
        const val WAITERS = 4
    }

}

/** Open, so that a CGLIB proxy can subclass it. */
open class HotCoroutines {

    @DistributedLock(name = "hot", key = "#key", localHandoff = true)
    open suspend fun hold(key: String, token: FencingToken, release: CompletableDeferred<Unit>): Long {
        release.await()
        return token.value
    }

}
